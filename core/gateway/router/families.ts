/**
 * conduit's routing table as data (docs/conduit.md). A leading `*` also matches
 * the same model through an aggregator (openrouter, together).
 */
import type { Task } from './classify.ts';

export const FAMILIES = ['code', 'reasoning', 'long_context', 'vision', 'tools', 'fast'] as const;
export type Family = (typeof FAMILIES)[number];

export const TASK_FAMILY: Readonly<Record<Task, Family>> = {
  code: 'code',
  reasoning: 'reasoning',
  long_context: 'long_context',
  vision: 'vision',
  structured_output: 'tools',
  extraction: 'tools',
  tool_use: 'tools',
  short_chat: 'fast',
  chat: 'fast',
};

/** Best first; a model keeps the place of its first matching pattern. */
export const DEFAULT_FAMILY_MODELS: Readonly<Record<Family, readonly string[]>> = {
  code: [
    '*claude-sonnet-4-5*',
    '*claude-sonnet-4*',
    '*/gpt-5',
    '*gpt-5-codex*',
    '*claude-opus-4*',
    '*gpt-4.1',
    '*gemini-2.5-pro*',
    '*codestral*',
    '*devstral*',
    '*qwen*coder*',
    '*deepseek-coder*',
    '*kimi-k2*',
    '*deepseek-chat',
    '*gpt-oss-120b*',
    '*/gpt-5-mini',
    '*gpt-4.1-mini',
    '*llama-3.3-70b*',
    '*coder*',
  ],
  reasoning: [
    '*/gpt-5',
    '*/o3',
    '*claude-opus-4*',
    '*gemini-2.5-pro*',
    '*deepseek-reasoner*',
    '*deepseek-r1*',
    '*claude-sonnet-4-5*',
    '*/o4-mini*',
    '*/gpt-5-mini',
    '*/o3-mini*',
    '*magistral*',
    '*qwq*',
    '*gpt-oss-120b*',
    '*claude-sonnet-4*',
    '*gemini-2.5-flash',
    '*/o1*',
  ],
  long_context: [
    '*gemini-2.5-pro*',
    '*gpt-4.1',
    '*gemini-2.5-flash',
    '*claude-sonnet-4-5*',
    '*claude-sonnet-4*',
    '*gpt-4.1-mini',
    '*/gpt-5',
    '*llama-4*',
    '*claude-opus-4*',
    '*gemini-*',
    '*codestral*',
    '*mistral-large*',
    '*mistral-medium*',
    '*kimi-k2*',
  ],
  vision: [
    '*gpt-4.1',
    '*gpt-4o',
    '*gemini-2.5-pro*',
    '*claude-sonnet-4-5*',
    '*claude-sonnet-4*',
    '*gemini-2.5-flash*',
    '*gpt-4.1-mini',
    '*gpt-4o-mini',
    '*/gpt-5*',
    '*claude-opus-4*',
    '*claude-haiku-4*',
    '*claude-3*',
    '*gemini-*',
    '*pixtral*',
    '*mistral-medium*',
    '*mistral-small*',
    '*llama-4*',
    '*llama3.2-vision*',
    '*llama-3.2-*vision*',
    '*llava*',
    '*qwen*vl*',
    '*gemma3*',
    '*minicpm-v*',
    '*moondream*',
  ],
  tools: [
    '*gpt-4.1-mini',
    '*gpt-4.1',
    '*claude-sonnet-4-5*',
    '*/gpt-5-mini',
    '*claude-haiku-4-5*',
    '*gemini-2.5-flash',
    '*claude-sonnet-4*',
    '*gemini-2.5-pro*',
    '*mistral-medium*',
    '*mistral-small*',
    '*mistral-large*',
    '*kimi-k2*',
    '*llama-3.3-70b*',
    '*gpt-oss-120b*',
    '*deepseek-chat',
    '*gpt-4o-mini',
    '*gpt-4o',
    '*qwen3*',
    '*qwen2.5*',
    '*llama3.1*',
    '*llama3.2*',
  ],
  fast: [
    '*gpt-4.1-mini',
    '*gemini-2.5-flash',
    '*claude-haiku-4-5*',
    'groq/*llama-3.3-70b*',
    '*gpt-4o-mini',
    '*/gpt-5-mini',
    '*mistral-small*',
    '*gpt-4.1-nano',
    '*gemini-2.5-flash-lite*',
    '*/gpt-5-nano',
    '*claude-3-5-haiku*',
    '*llama-3.1-8b*',
    '*ministral*',
    '*deepseek-chat',
    'local/*',
  ],
};

/** Not chat models, the router itself included. */
export const NON_CHAT_MODELS: readonly string[] = [
  'service/*',
  '*embed*',
  '*rerank*',
  '*whisper*',
  '*tts*',
  '*transcribe*',
  '*dall-e*',
  '*gpt-image*',
  '*imagen*',
  '*moderation*',
  '*guard*',
  '*realtime*',
  '*sora*',
  '*veo-*',
  '*bge-*',
];

/** Never chosen for vision; unlisted models are "unknown". */
export const TEXT_ONLY_MODELS: readonly string[] = [
  '*deepseek*',
  '*codestral*',
  '*devstral*',
  '*/o1-mini*',
  '*/o3-mini*',
  '*gpt-3.5*',
  '*llama-3.1*',
  '*llama-3.3*',
  '*llama3.1*',
  '*llama3.3*',
  '*llama3.2',
  '*llama3.2:*',
  '*mistral-large*',
  '*mixtral*',
  '*qwq*',
  '*qwen*coder*',
  '*kimi-k2*',
  '*gpt-oss*',
  '*magistral*',
  '*claude-3-5-haiku*',
];

const compiled = new Map<string, RegExp>();

/** Whole-id, case-insensitive; `*` spans `/` too (model ids may contain one). */
export function matches(pattern: string, id: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${body}$`, 'i');
    // Bounded: patterns come from code or a workspace's settings, both small.
    if (compiled.size < 4096) compiled.set(pattern, re);
  }
  return re.test(id);
}

export const matchesAny = (patterns: readonly string[], id: string) => patterns.some((p) => matches(p, id));
