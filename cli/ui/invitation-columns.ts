import type { Invitation } from '../../core/invitations/types.ts';

/** Shared by the ink table and the plain (piped) output. */
export const COLUMNS = ['ID', 'EMAIL', 'ROLE', 'STATUS', 'EXPIRES', 'EMAIL DELIVERY', 'TOKEN'] as const;

export function rowCells(i: Invitation): string[] {
  return [i.id, i.email, i.role, i.status, shortTime(i.expiresAt), i.deliveryStatus, i.tokenPreview];
}

/** 2026-12-01T17:24:33.123Z → 2026-12-01 17:24Z: minutes are enough for an expiry. */
const shortTime = (iso: string) => iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z');

/** Two spaces between columns. */
export function tableWidth(cells: string[][]): number {
  return COLUMNS.reduce((sum, _, c) => sum + Math.max(...cells.map((r) => r[c]!.length)), 0) + 2 * (COLUMNS.length - 1);
}

/** For terminals narrower than the table. */
export function stackedRows(rows: Invitation[]): string {
  return rows.map((i) => COLUMNS.map((name, c) => `${name.toLowerCase().padEnd(15)}${rowCells(i)[c]}`).join('\n')).join('\n\n') + '\n';
}

export const caption = (ws: { id: string; name: string }, n: number) => `workspace "${ws.name}" (${ws.id}): ${n} invitation(s)`;

/** For pipes and logs: no colour, no box drawing. */
export function plainTable(ws: { id: string; name: string }, rows: Invitation[], columns?: number): string {
  const head = caption(ws, rows.length) + '\n';
  if (rows.length === 0) return head;
  const cells = [COLUMNS.slice() as string[], ...rows.map(rowCells)];
  if (columns !== undefined && tableWidth(cells) > columns) return head + stackedRows(rows);
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  return head + cells.map((r) => r.map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c]!))).join('  ')).join('\n') + '\n';
}
