/** The labelled conduit prompts; `<<DOC:n>>` and `<<CODE:n>>` markers keep the file small. */
import { readFileSync } from 'node:fs';
import type { ChatRequest } from '../../core/wire/openai.ts';

export interface LabelledPrompt {
  request: Partial<ChatRequest> & Pick<ChatRequest, 'messages'>;
  expected_task: string;
}

const PROSE =
  'The council met on a grey Tuesday to review the plans for the new riverside library. Residents spoke ' +
  'about opening hours, parking near the old mill and the reading garden promised in the first draft. ' +
  'The architect described the timber frame, the daylight in the upper hall and the small café by the ' +
  'entrance, while the treasurer walked through the phased budget agreed with the regional fund. ';
const CODE =
  'export function applyDiscount(order, rules) {\n  let total = 0;\n  for (const line of order.lines) {\n' +
  '    const rule = rules.find((r) => r.sku === line.sku);\n    total += rule ? line.price * (1 - rule.rate) : line.price;\n' +
  '  }\n  return Math.round(total * 100) / 100;\n}\n\n';

function filler(unit: string, n: number): string {
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

function expand(s: string): string {
  return s.replace(/<<(DOC|CODE):(\d+)>>/g, (_m, kind: string, n: string) => filler(kind === 'DOC' ? PROSE : CODE, Number(n)));
}

function expandValue(v: unknown): unknown {
  if (typeof v === 'string') return expand(v);
  if (Array.isArray(v)) return v.map(expandValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandValue(x)]));
  return v;
}

/** `dev`: the weights were tuned on it; `holdout`: never tuned on. */
export function loadConduitPrompts(split: 'dev' | 'holdout' = 'dev'): LabelledPrompt[] {
  const suffix = split === 'dev' ? '' : '-holdout';
  const url = new URL(`../fixtures/conduit-prompts${suffix}.jsonl`, import.meta.url);
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as LabelledPrompt;
      return { expected_task: o.expected_task, request: expandValue(o.request) as LabelledPrompt['request'] };
    });
}
