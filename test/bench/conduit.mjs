// conduit's classifier accuracy and cost per call; not a bench section.
// Usage: scripts/n node test/bench/conduit.mjs [iterations=20]
import { classify } from '../../core/gateway/router/classify.ts';
import { route } from '../../core/gateway/router/route.ts';
import { loadConduitPrompts } from '../helpers/conduit-prompts.ts';

const iterations = Number(process.argv[2] ?? 20);
const splits = { dev: loadConduitPrompts('dev'), holdout: loadConduitPrompts('holdout') };
const all = [...splits.dev, ...splits.holdout];
const requests = all.map((p) => ({ model: 'service/conduit', ...p.request }));

for (const [name, set] of Object.entries({ ...splits, all })) {
  const ok = set.filter((p) => classify({ model: 'service/conduit', ...p.request }).task === p.expected_task).length;
  console.log(`accuracy ${name.padEnd(8)} ${ok}/${set.length} = ${((100 * ok) / set.length).toFixed(1)}%`);
}

const WORKSPACE = [
  'openai/gpt-4.1', 'openai/gpt-4.1-mini', 'openai/gpt-4.1-nano', 'openai/gpt-4o', 'openai/gpt-4o-mini', 'openai/gpt-5',
  'openai/gpt-5-mini', 'openai/o3', 'openai/o4-mini', 'openai/text-embedding-3-small', 'openai/whisper-1',
  'anthropic/claude-sonnet-4-5', 'anthropic/claude-haiku-4-5', 'anthropic/claude-opus-4-1', 'gemini/gemini-2.5-pro',
  'gemini/gemini-2.5-flash', 'groq/llama-3.3-70b-versatile', 'groq/llama-3.1-8b-instant', 'deepseek/deepseek-chat',
  'deepseek/deepseek-reasoner', 'mistral/codestral-latest', 'mistral/mistral-small-latest', 'local/llama3.2',
  'local/nomic-embed-text', 'openrouter/anthropic/claude-sonnet-4.5', 'openrouter/meta-llama/llama-4-maverick',
];

function timeEach(label, fn) {
  for (let i = 0; i < 3; i++) for (const r of requests) fn(r); // warm-up (JIT, pattern cache)
  const samples = new Float64Array(iterations * requests.length);
  let n = 0;
  for (let i = 0; i < iterations; i++) {
    for (const r of requests) {
      const t0 = process.hrtime.bigint();
      fn(r);
      samples[n++] = Number(process.hrtime.bigint() - t0) / 1000;
    }
  }
  samples.sort();
  const q = (p) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))].toFixed(2);
  const mean = (samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(2);
  console.log(`${label.padEnd(9)} µs/call over ${samples.length} calls: mean ${mean}  p50 ${q(0.5)}  p99 ${q(0.99)}  max ${q(1).padStart(0)}`);
}

timeEach('classify', (r) => classify(r));
timeEach('route', (r) => route(r, WORKSPACE));
