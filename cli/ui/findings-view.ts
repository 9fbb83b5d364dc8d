import { createElement as h } from 'react';
import { Box, Text } from 'ink';
import type { Finding } from '../../core/doctor/index.ts';

const MARK = { ok: ['✔', 'green'], warn: ['!', 'yellow'], fail: ['✖', 'red'] } as const;

/** Ink view of doctor findings, the fix on its own line. */
export function FindingsView({ findings }: { findings: Finding[] }) {
  return h(
    Box,
    { flexDirection: 'column' },
    ...findings.map((f, i) =>
      h(
        Box,
        { key: i, flexDirection: 'column' },
        h(Text, null, h(Text, { color: MARK[f.status][1] }, MARK[f.status][0]), ' ', h(Text, { bold: true }, f.check.padEnd(14)), f.message),
        f.fix ? h(Text, { dimColor: true }, '  '.padEnd(16) + 'fix: ' + f.fix) : null,
      ),
    ),
  );
}
