/** Chat completion → non-streamed Responses object. */
import { newId } from '../../kernel/ids.ts';
import type { ChatCompletion } from '../../wire/openai.ts';
import { newResponseIdentity, responseObject, terminalOf, toResponsesUsage } from './envelope.ts';
import type { OutputItem, OutputMessage, ResponseIdentity, ResponsesMeta } from './types.ts';

export interface EnvelopeOptions {
  identity?: ResponseIdentity;
  /** Injectable time (ms) for created_at/completed_at. */
  now?: () => number;
}

export function toResponsesEnvelope(chat: ChatCompletion, meta: ResponsesMeta, opts: EnvelopeOptions = {}): Record<string, unknown> {
  const now = opts.now ?? Date.now;
  const ident = opts.identity ?? newResponseIdentity(now());
  const choice = chat.choices[0];
  const term = terminalOf(choice?.finish_reason);
  const itemStatus = term.status === 'completed' ? 'completed' : 'incomplete';
  const output: OutputItem[] = [];
  const msg = choice?.message;
  if (msg) {
    const content: OutputMessage['content'] = [];
    if (typeof msg.content === 'string' && msg.content !== '') content.push({ type: 'output_text', text: msg.content, annotations: [], logprobs: [] });
    if (typeof msg.refusal === 'string' && msg.refusal !== '') content.push({ type: 'refusal', refusal: msg.refusal });
    if (content.length > 0) output.push({ id: newId('msg'), type: 'message', status: itemStatus, role: 'assistant', content });
    for (const tc of msg.tool_calls ?? []) {
      output.push({
        id: newId('fc'),
        type: 'function_call',
        status: itemStatus,
        call_id: tc.id || newId('call'),
        name: tc.function.name,
        arguments: tc.function.arguments,
      });
    }
  }
  return responseObject(meta, ident, {
    status: term.status,
    output,
    model: chat.model,
    usage: toResponsesUsage(chat.usage),
    incompleteReason: term.reason,
    serviceTier: typeof chat.service_tier === 'string' ? chat.service_tier : undefined,
    completedAtMs: now(),
  });
}
