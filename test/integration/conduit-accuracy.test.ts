// service/conduit classifier accuracy over the labelled prompt sets (test/fixtures/conduit-prompts*.jsonl).
// `dev` is the set the weights were tuned on; `holdout` was written afterwards. Floors make a
// regression fail; the printed confusion summary says where it went wrong.
import assert from 'node:assert/strict';
import { test } from 'vitest';
import { TASKS, classify } from '../../core/gateway/router/classify.ts';
import { loadConduitPrompts } from '../helpers/conduit-prompts.ts';
import type { LabelledPrompt } from '../helpers/conduit-prompts.ts';

const FLOOR = { dev: 0.9, holdout: 0.85, all: 0.9 };

interface Tally {
  ok: number;
  total: number;
  confusion: Map<string, number>;
}

function evaluate(set: LabelledPrompt[]): Tally {
  const t: Tally = { ok: 0, total: set.length, confusion: new Map() };
  for (const p of set) {
    const got = classify({ model: 'service/conduit', ...p.request }).task;
    if (got === p.expected_task) t.ok++;
    else {
      const k = `${p.expected_task} → ${got}`;
      t.confusion.set(k, (t.confusion.get(k) ?? 0) + 1);
    }
  }
  return t;
}

function report(name: string, t: Tally): string {
  const pct = ((100 * t.ok) / t.total).toFixed(1);
  const conf = [...t.confusion].sort((a, b) => b[1] - a[1]).map(([k, n]) => `    ${k}: ${n}`);
  return `conduit accuracy (${name}): ${t.ok}/${t.total} = ${pct}%\n${conf.join('\n') || '    (no confusions)'}\n`;
}

const dev = loadConduitPrompts('dev');
const holdout = loadConduitPrompts('holdout');

test('the labelled sets are well-formed: ≥ 200 prompts, every label a known task, every task covered', () => {
  const all = [...dev, ...holdout];
  assert.ok(all.length >= 200, `only ${all.length} prompts`);
  for (const p of all) {
    assert.ok((TASKS as readonly string[]).includes(p.expected_task), p.expected_task);
    assert.ok(Array.isArray(p.request.messages) && p.request.messages.length > 0);
  }
  for (const task of TASKS) assert.ok(all.filter((p) => p.expected_task === task).length >= 10, `${task} under-represented`);
  // The long-document markers expanded: long_context prompts really are long.
  for (const p of all.filter((x) => x.expected_task === 'long_context')) {
    assert.ok(JSON.stringify(p.request.messages).length > 90_000);
  }
});

test('classifier accuracy meets its floors (per split and overall)', () => {
  const d = evaluate(dev);
  const h = evaluate(holdout);
  const all: Tally = { ok: d.ok + h.ok, total: d.total + h.total, confusion: new Map() };
  for (const m of [d.confusion, h.confusion]) for (const [k, n] of m) all.confusion.set(k, (all.confusion.get(k) ?? 0) + n);
  process.stdout.write(report('dev', d) + report('holdout', h) + report('all', all));
  assert.ok(d.ok / d.total >= FLOOR.dev, `dev accuracy ${d.ok}/${d.total} under ${FLOOR.dev}`);
  assert.ok(h.ok / h.total >= FLOOR.holdout, `holdout accuracy ${h.ok}/${h.total} under ${FLOOR.holdout}`);
  assert.ok(all.ok / all.total >= FLOOR.all, `overall accuracy ${all.ok}/${all.total} under ${FLOOR.all}`);
});
