import type { RunDeps } from './deps.ts';
import { appsOf, loadRun, parse, runView, usageTotals, type ReadEvent, type ReadStep } from './read.ts';

const str = JSON.stringify;

/** readRun's bytes with stored JSON spliced unparsed (docs/architecture.md); tool
 * inputs are the model's text, so still parsed. read-json.test.ts keeps them equal. */
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
