/** Weakest first: viewers read, members run agents, admins manage, owners touch owners. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const atLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** Nobody acts on a member who outranks them. */
export const outranks = (a: Role, b: Role): boolean => RANK[a] > RANK[b];
