import type { RunDeps } from './deps.ts';
import { appsOf, loadRun, parse, runView, usageTotals, type ReadEvent, type ReadStep } from './read.ts';

const str = JSON.stringify;

/**
 * readRun's document as JSON text, byte for byte what `JSON.stringify(await readRun(…))` gives,
 * without parsing and re-serialising the JSON the store already holds (a 50-step read spent a
 * third of its CPU on that). Spliced in as stored: event data, and a model step's input and output.
 * All three are only ever written as `JSON.stringify(value)` by this codebase (repo.ts addEvent/
 * addEvents, steps.ts), and for such text `JSON.stringify(JSON.parse(t)) === t`, so the splice and the
 * parse-and-serialise give the same bytes. A tool step's input is the model's own arguments text
 * (any JSON, or none), so it still goes through parse (normalised, or kept as a string).
 * read-json.test.ts holds the two renderings equal.
 */
export async function readRunJson(deps: Pick<RunDeps, 'db' | 'clock'>, agentId: string, runId: string, userId: string): Promise<string> {
  const { run, steps, events } = await loadRun(deps, agentId, runId, userId);
  let out = `{"run":${str(runView(run))},"steps":[`;
  for (let i = 0; i < steps.length; i++) out += (i ? ',' : '') + stepJson(steps[i]!);
  out += '],"events":[';
  for (let i = 0; i < events.length; i++) out += (i ? ',' : '') + eventJson(events[i]!);
  return `${out}],"usage":${str(usageTotals(steps))},"apps":${str(await appsOf(deps, runId, events))}}`;
}

/** Stored JSON text as a value (null stays null). */
const stored = (s: string | null): string => (s === null ? 'null' : s);

function stepJson(x: ReadStep): string {
  const model = x.kind === 'model';
  return (
    `{"seq":${str(x.seq)},"kind":${str(x.kind)},"status":${str(x.status)},"name":${str(x.name)},"callId":${str(x.call_id)}` +
    `,"input":${model ? stored(x.input) : str(parse(x.input))},"output":${model ? stored(x.output) : str(x.output)}` +
    `,"error":${str(x.error)},"provider":${str(x.provider)},"model":${str(x.model)}` +
    `,"usage":{"inputTokens":${str(Number(x.input_tokens))},"cachedTokens":${str(Number(x.cached_tokens))},"outputTokens":${str(Number(x.output_tokens))},"reasoningTokens":${str(Number(x.reasoning_tokens))},"totalTokens":${str(Number(x.total_tokens))}}` +
    `,"startedAt":${str(x.started_at)},"finishedAt":${str(x.finished_at)}}`
  );
}

function eventJson(x: ReadEvent): string {
  return `{"seq":${str(x.seq)},"kind":${str(x.kind)},"data":${x.data},"createdAt":${str(x.created_at)}}`;
}
