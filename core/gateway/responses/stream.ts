/** The SDK's `responses.stream()` validates every event; the order: docs/responses.md. */
import { newId } from '../../kernel/ids.ts';
import type { ChatChunk, ChatChunkToolCallDelta, ChatUsage, FinishReason } from '../../wire/openai.ts';
import { newResponseIdentity, responseObject, terminalOf, toResponsesUsage } from './envelope.ts';
import type { ItemStatus, OutputFunctionCall, OutputItem, OutputMessage, OutputRefusal, OutputText, ResponsesEvent, ResponsesMeta } from './types.ts';
import type { ResponseIdentity } from './types.ts';

export interface StreamOptions {
  identity?: ResponseIdentity;
  now?: () => number;
}

interface OpenMessage {
  item: OutputMessage;
  index: number;
  text?: { part: OutputText; at: number };
  refusal?: { part: OutputRefusal; at: number };
}

export async function* responsesEventStream(
  chunks: AsyncIterable<ChatChunk>,
  meta: ResponsesMeta,
  opts: StreamOptions = {},
): AsyncGenerator<ResponsesEvent> {
  const now = opts.now ?? Date.now;
  const ident = opts.identity ?? newResponseIdentity(now());
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): ResponsesEvent => ({
    event: type,
    data: { type, sequence_number: seq++, ...fields },
  });
  const output: OutputItem[] = [];
  const open = new Set<number>(); // output indexes not yet done
  let msg: OpenMessage | undefined;
  const calls = new Map<number, { item: OutputFunctionCall; index: number }>();
  let finish: FinishReason | undefined;
  let usage: ChatUsage | null | undefined;
  let model: string | undefined;
  let serviceTier: string | undefined;

  const snapshot = (status: 'in_progress') => responseObject(meta, ident, { status, output: [], model });
  yield ev('response.created', { response: snapshot('in_progress') });
  yield ev('response.in_progress', { response: snapshot('in_progress') });

  function* openMessage(): Generator<ResponsesEvent, OpenMessage> {
    const item: OutputMessage = { id: newId('msg'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    const index = output.push(item) - 1;
    open.add(index);
    yield ev('response.output_item.added', { output_index: index, item: { ...item, content: [] } });
    return { item, index };
  }
  function* closeMessage(m: OpenMessage, status: ItemStatus): Generator<ResponsesEvent> {
    const base = { item_id: m.item.id, output_index: m.index };
    if (m.text) {
      yield ev('response.output_text.done', { ...base, content_index: m.text.at, text: m.text.part.text, logprobs: [] });
      yield ev('response.content_part.done', { ...base, content_index: m.text.at, part: { ...m.text.part } });
    }
    if (m.refusal) {
      yield ev('response.refusal.done', { ...base, content_index: m.refusal.at, refusal: m.refusal.part.refusal });
      yield ev('response.content_part.done', { ...base, content_index: m.refusal.at, part: { ...m.refusal.part } });
    }
    m.item.status = status;
    open.delete(m.index);
    yield ev('response.output_item.done', { output_index: m.index, item: structuredClone(m.item) });
  }
  function* closeCall(c: { item: OutputFunctionCall; index: number }, status: ItemStatus): Generator<ResponsesEvent> {
    c.item.status = status;
    open.delete(c.index);
    yield ev('response.function_call_arguments.done', { item_id: c.item.id, output_index: c.index, name: c.item.name, arguments: c.item.arguments });
    yield ev('response.output_item.done', { output_index: c.index, item: { ...c.item } });
  }
  function* onText(delta: string): Generator<ResponsesEvent> {
    msg ??= yield* openMessage();
    if (!msg.text) {
      const at = msg.item.content.length;
      const part: OutputText = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      msg.item.content.push(part);
      msg.text = { part, at };
      yield ev('response.content_part.added', { item_id: msg.item.id, output_index: msg.index, content_index: at, part: { ...part, annotations: [], logprobs: [] } });
    }
    msg.text.part.text += delta;
    yield ev('response.output_text.delta', { item_id: msg.item.id, output_index: msg.index, content_index: msg.text.at, delta, logprobs: [] });
  }
  function* onRefusal(delta: string): Generator<ResponsesEvent> {
    msg ??= yield* openMessage();
    if (!msg.refusal) {
      const at = msg.item.content.length;
      const part: OutputRefusal = { type: 'refusal', refusal: '' };
      msg.item.content.push(part);
      msg.refusal = { part, at };
      yield ev('response.content_part.added', { item_id: msg.item.id, output_index: msg.index, content_index: at, part: { ...part } });
    }
    msg.refusal.part.refusal += delta;
    yield ev('response.refusal.delta', { item_id: msg.item.id, output_index: msg.index, content_index: msg.refusal.at, delta });
  }
  function* onToolCall(d: ChatChunkToolCallDelta): Generator<ResponsesEvent> {
    let c = calls.get(d.index);
    if (c === undefined) {
      if (msg) {
        yield* closeMessage(msg, 'completed');
        msg = undefined;
      }
      const item: OutputFunctionCall = {
        id: newId('fc'),
        type: 'function_call',
        status: 'in_progress',
        call_id: d.id || newId('call'),
        name: d.function?.name ?? '',
        arguments: '',
      };
      c = { item, index: output.push(item) - 1 };
      calls.set(d.index, c);
      open.add(c.index);
      yield ev('response.output_item.added', { output_index: c.index, item: { ...item } });
    } else if (!c.item.name && d.function?.name) {
      // Some upstreams send the id first and the name in a later delta.
      c.item.name = d.function.name;
    }
    const args = d.function?.arguments;
    if (args) {
      c.item.arguments += args;
      yield ev('response.function_call_arguments.delta', { item_id: c.item.id, output_index: c.index, delta: args });
    }
  }

  try {
    for await (const chunk of chunks) {
      if (chunk.model) model = chunk.model;
      if (typeof chunk.service_tier === 'string') serviceTier = chunk.service_tier;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const d = choice.delta;
      if (typeof d.content === 'string' && d.content !== '') yield* onText(d.content);
      if (typeof d.refusal === 'string' && d.refusal !== '') yield* onRefusal(d.refusal);
      if (d.tool_calls) for (const tc of d.tool_calls) yield* onToolCall(tc);
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } catch (err) {
    // Partial output is kept: open items become incomplete; no done events for them.
    for (const i of open) (output[i] as OutputItem).status = 'incomplete';
    yield ev('response.failed', {
      response: responseObject(meta, ident, {
        status: 'failed',
        output: structuredClone(output),
        model,
        usage: usage ? toResponsesUsage(usage) : null,
        error: failureOf(err),
        serviceTier,
      }),
    });
    return;
  }

  const term = terminalOf(finish);
  const itemStatus: ItemStatus = term.status === 'completed' ? 'completed' : 'incomplete';
  for (const index of [...open].sort((a, b) => a - b)) {
    const item = output[index] as OutputItem;
    if (item.type === 'message') yield* closeMessage(msg as OpenMessage, itemStatus);
    else yield* closeCall({ item, index }, itemStatus);
  }
  yield ev(term.status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseObject(meta, ident, {
      status: term.status,
      output: structuredClone(output),
      model,
      usage: toResponsesUsage(usage),
      incompleteReason: term.reason,
      serviceTier,
      completedAtMs: now(),
    }),
  });
}

/** The normalised message, never a stack. */
function failureOf(err: unknown): { code: string; message: string } {
  const status = (err as { status?: unknown } | null)?.status;
  const body = (err as { body?: { error?: { message?: unknown } } } | null)?.body;
  const upstreamMessage = body?.error?.message;
  const isApp = (err as { name?: unknown } | null)?.name === 'AppError' || (err as { name?: unknown } | null)?.name === 'UpstreamError';
  const message =
    typeof upstreamMessage === 'string' ? upstreamMessage : isApp && err instanceof Error ? err.message : 'The upstream provider failed while streaming.';
  return { code: status === 429 ? 'rate_limit_exceeded' : 'server_error', message };
}
