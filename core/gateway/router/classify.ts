/** No model call: it runs on every conduit request. Precedence: docs/conduit.md. */
import type { ChatMessage, ChatRequest } from '../../wire/openai.ts';
import { GENERATIVE, emptyScores, isSmallTalk, scoreText } from './text-features.ts';
import type { TextScores } from './text-features.ts';

export const TASKS = [
  'code',
  'reasoning',
  'long_context',
  'structured_output',
  'tool_use',
  'vision',
  'extraction',
  'short_chat',
  'chat',
] as const;
export type Task = (typeof TASKS)[number];

export interface ClassifySignals {
  messageCount: number;
  imageParts: number;
  toolCount: number;
  toolChoiceNone: boolean;
  responseFormat: 'json_schema' | 'json_object' | null;
  reasoningEffort: string | null;
  promptChars: number;
  estimatedTokens: number;
  lastUserChars: number;
  scores: { code: number; reasoning: number; extraction: number; structured: number; chat: number };
}

export interface Classification {
  task: Task;
  confidence: number;
  reasons: string[];
  signals: ClassifySignals;
}

export interface ClassifyOptions {
  /** Estimated prompt tokens at or above which a request is long_context. */
  longContextTokens?: number;
}

export const DEFAULT_LONG_CONTEXT_TOKENS = 24_000;
/** Good enough for a threshold. */
const CHARS_PER_TOKEN = 4;
/** The instruction is usually at one end of a paste. */
const HEAD = 700;
const TAIL = 300;
/** This short, with no generative verb or other evidence: small talk. */
const SHORT_CHARS = 80;
const SHORT_WORDS = 14;

const THRESHOLD = { code: 2.5, reasoning: 2.5, extraction: 3, structured: 4 } as const;
type TextTask = keyof typeof THRESHOLD;
const TEXT_TASK: Record<TextTask, Task> = {
  code: 'code',
  reasoning: 'reasoning',
  extraction: 'extraction',
  structured: 'structured_output',
};
/** Tie order: the more specific intent first. */
const TIE_ORDER: readonly TextTask[] = ['structured', 'code', 'extraction', 'reasoning'];

function isImagePart(p: unknown): boolean {
  const t = (p as { type?: unknown } | null)?.type;
  return t === 'image_url' || t === 'input_image' || t === 'image';
}

/** Text of a message; counts image parts into `acc`. */
function textOf(m: ChatMessage, acc: { images: number }): string {
  const c = m.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  let s = '';
  for (const p of c) {
    if (isImagePart(p)) acc.images++;
    else if (p && typeof (p as { text?: unknown }).text === 'string') s += (s ? '\n' : '') + (p as { text: string }).text;
  }
  return s;
}

const clip = (s: string) => (s.length <= HEAD + TAIL ? s : s.slice(0, HEAD) + '\n' + s.slice(-TAIL));
const round = (n: number) => Math.round(n * 100) / 100;

export function classify(req: ChatRequest, opts: ClassifyOptions = {}): Classification {
  const messages = Array.isArray(req.messages) ? req.messages : [];
  const acc = { images: 0 };
  let chars = 0;
  let lastUser = -1;
  const texts: string[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const t = textOf(m, acc);
    texts[i] = t;
    chars += t.length;
    if (m.role === 'user') lastUser = i;
  }
  const tools = Array.isArray(req.tools) ? req.tools.length : 0;
  const toolChoiceNone = req.tool_choice === 'none';
  const rfType = req.response_format?.type;
  const responseFormat = rfType === 'json_schema' || rfType === 'json_object' ? rfType : null;
  const effort = typeof req.reasoning_effort === 'string' ? req.reasoning_effort : null;
  const estimatedTokens = Math.ceil(chars / CHARS_PER_TOKEN);
  const longAt = opts.longContextTokens ?? DEFAULT_LONG_CONTEXT_TOKENS;
  const lastText = lastUser >= 0 ? texts[lastUser]!.trim() : '';

  const signals: ClassifySignals = {
    messageCount: messages.length,
    imageParts: acc.images,
    toolCount: tools,
    toolChoiceNone,
    responseFormat,
    reasoningEffort: effort,
    promptChars: chars,
    estimatedTokens,
    lastUserChars: lastText.length,
    scores: { code: 0, reasoning: 0, extraction: 0, structured: 0, chat: 0 },
  };
  const done = (task: Task, confidence: number, reasons: string[]): Classification => ({
    task,
    confidence,
    reasons,
    signals,
  });

  // 1. Fields that limit which models can serve the request.
  if (acc.images > 0) return done('vision', 0.99, [`${acc.images} image part(s) in the messages`]);
  if (estimatedTokens >= longAt)
    return done('long_context', 0.97, [`~${estimatedTokens} estimated prompt tokens (threshold ${longAt})`]);
  if (tools > 0 && !toolChoiceNone) return done('tool_use', 0.95, [`${tools} tool(s) offered`]);
  if (responseFormat) return done('structured_output', 0.95, [`response_format ${responseFormat}`]);
  if (effort === 'low' || effort === 'medium' || effort === 'high')
    return done('reasoning', 0.9, [`reasoning_effort ${effort}`]);

  // 2. Text heuristics.
  const s = emptyScores();
  scoreText(clip(lastText), s, 'user');
  for (let i = 0; i < messages.length; i++) {
    const r = messages[i]!.role;
    if (r === 'system' || r === 'developer') scoreText(clip(texts[i]!), s, 'system');
  }
  signals.scores = pick(s);
  const preface = toolChoiceNone && tools > 0 ? ['tools offered but tool_choice is "none"'] : [];

  if (isSmallTalk(lastText)) return done('short_chat', 0.9, [...preface, 'greeting or acknowledgement']);

  const best = bestLane(s);
  if (best && s.chat < s[best]) {
    const margin = s[best] - THRESHOLD[best];
    return done(TEXT_TASK[best], Math.min(0.9, 0.6 + 0.1 * margin), [
      ...preface,
      `text score ${best} ${round(s[best])} ≥ ${THRESHOLD[best]}: ${s.hits.join(', ')}`,
    ]);
  }
  // 3. A follow-up ("now make it handle negatives") inherits a code/reasoning lane.
  if (!best && lastUser > 0) {
    const prior = emptyScores();
    for (let i = Math.max(0, lastUser - 3); i < lastUser; i++) {
      const r = messages[i]!.role;
      if (r === 'user' || r === 'assistant') scoreText(clip(texts[i]!), prior, 'user');
    }
    const lane = bestLane(prior);
    if (lane === 'code' || lane === 'reasoning') {
      return done(lane, 0.6, [...preface, `follow-up to a ${lane} conversation: ${prior.hits.join(', ')}`]);
    }
  }

  if (best || s.chat > 0) return done('chat', 0.6, [...preface, `open-ended request: ${s.hits.join(', ')}`]);

  // 4. Small talk or general chat.
  const words = lastText.split(/\s+/).filter(Boolean).length;
  if (lastText.length <= SHORT_CHARS && words <= SHORT_WORDS && !GENERATIVE.test(lastText)) {
    return done('short_chat', 0.7, [...preface, `short message (${lastText.length} chars) with no task signal`]);
  }
  return done('chat', 0.5, [...preface, 'no specific task signal']);
}

function bestLane(s: TextScores): TextTask | null {
  let best: TextTask | null = null;
  for (const k of TIE_ORDER) {
    if (s[k] >= THRESHOLD[k] && (best === null || s[k] > s[best])) best = k;
  }
  return best;
}

function pick(s: TextScores): ClassifySignals['scores'] {
  return {
    code: round(s.code),
    reasoning: round(s.reasoning),
    extraction: round(s.extraction),
    structured: round(s.structured),
    chat: round(s.chat),
  };
}
