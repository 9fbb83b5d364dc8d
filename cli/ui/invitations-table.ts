import { createElement as h } from 'react';
import { Box, Text } from 'ink';
import type { Invitation } from '../../core/invitations/types.ts';
import { caption, COLUMNS, rowCells, stackedRows, tableWidth } from './invitation-columns.ts';

const STATUS_COLOR: Record<Invitation['status'], string> = { pending: 'green', used: 'blue', revoked: 'gray', expired: 'yellow' };
const STATUS_COL = COLUMNS.indexOf('STATUS');

/** Pre-padded lines, so flexbox never squeezes columns together. */
export function InvitationsTable({ workspace, rows, columns }: { workspace: { id: string; name: string }; rows: Invitation[]; columns?: number }) {
  const cells = [COLUMNS.slice() as string[], ...rows.map(rowCells)];
  // Blocks rather than wrapped, interleaved rows.
  if (columns !== undefined && rows.length > 0 && tableWidth(cells) > columns) {
    return h(Box, { flexDirection: 'column' }, h(Text, { dimColor: true }, caption(workspace, rows.length)), h(Text, null, stackedRows(rows)));
  }
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  const pad = (r: string[], c: number) => (c === r.length - 1 ? r[c]! : r[c]!.padEnd(widths[c]! + 2));
  const line = (r: string[], key: number, inv?: Invitation) =>
    h(
      Text,
      { key, bold: !inv, wrap: 'wrap' },
      ...r.map((_, c) => (inv && c === STATUS_COL ? h(Text, { key: c, color: STATUS_COLOR[inv.status] }, pad(r, c)) : pad(r, c))),
    );
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { dimColor: true }, caption(workspace, rows.length)),
    ...(rows.length === 0 ? [] : [line(cells[0]!, 0), ...rows.map((inv, i) => line(cells[i + 1]!, i + 1, inv))]),
  );
}
