/** Workspace roles, weakest first. Viewers read; members run agents and hold keys; admins and
 * owners manage invitations, members and provider accounts; only owners touch owners. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const atLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** True when `a` ranks above `b`: nobody acts on a member whose role outranks their own. */
export const outranks = (a: Role, b: Role): boolean => RANK[a] > RANK[b];
