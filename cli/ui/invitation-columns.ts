import type { Invitation } from '../../core/invitations/types.ts';

/** The columns of `svc invite list`, shared by the ink table and the plain (piped) output. */
export const COLUMNS = ['ID', 'EMAIL', 'ROLE', 'STATUS', 'EXPIRES', 'EMAIL DELIVERY', 'TOKEN'] as const;

export function rowCells(i: Invitation): string[] {
  return [i.id, i.email, i.role, i.status, i.expiresAt, i.deliveryStatus, i.tokenPreview];
}

export const caption = (ws: { id: string; name: string }, n: number) => `workspace "${ws.name}" (${ws.id}): ${n} invitation(s)`;

/** Aligned columns for pipes and logs (no colour, no box drawing). */
export function plainTable(ws: { id: string; name: string }, rows: Invitation[]): string {
  const head = caption(ws, rows.length) + '\n';
  if (rows.length === 0) return head;
  const cells = [COLUMNS.slice() as string[], ...rows.map(rowCells)];
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  return head + cells.map((r) => r.map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c]!))).join('  ')).join('\n') + '\n';
}
