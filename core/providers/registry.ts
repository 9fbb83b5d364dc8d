import { PROVIDER_IDS, type ProviderId } from './types.ts';

/**
 * The one list of providers, as data. Adapters are two wire protocols (OpenAI chat completions and
 * Anthropic Messages) over one engine; everything that differs between the OpenAI-speaking
 * providers is a quirk below, not code.
 *
 * Quirks are what we know each upstream rejects or names differently. Where an upstream is known to
 * ignore unknown fields we pass them through (a field we strip is a feature the caller loses).
 */
export type WireProtocol = 'openai' | 'anthropic';

export interface ProviderQuirks {
  /** Accepts `stream_options: {include_usage: true}`. Upstreams that do not still send usage on
   * their last chunk; the engine normalises that into the usage chunk. */
  streamOptions: boolean;
  /** Accepts `reasoning_effort`; otherwise it is dropped (the call still succeeds). */
  reasoningEffort: boolean;
  /** Which output-limit field the upstream understands; the other one is renamed to it. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Request fields renamed on the way out (e.g. Mistral's `random_seed`). */
  rename?: Readonly<Record<string, string>>;
  /** Request fields the upstream rejects (strict schemas answer 422 on unknown fields). */
  drop?: readonly string[];
  /** Returns `encoding_format: "base64"` embeddings itself; otherwise the engine asks for floats
   * and encodes them, so a base64 caller (the OpenAI SDK's default) still gets base64. */
  base64Embeddings?: boolean;
  /** Prefix on the ids its /models returns that its chat endpoint does not want. */
  modelIdPrefix?: string;
}

export interface ProviderSpec {
  id: ProviderId;
  label: string;
  /** API base without trailing slash; undefined = the account must give one. */
  defaultBaseUrl: string | undefined;
  protocol: WireProtocol;
  embeddings: boolean;
  keyRequired: boolean;
  quirks: ProviderQuirks;
}

const OPENAI_LIKE: ProviderQuirks = { streamOptions: true, reasoningEffort: true, maxTokensField: 'max_completion_tokens', base64Embeddings: true };

export const PROVIDERS: Readonly<Record<ProviderId, ProviderSpec>> = {
  openai: {
    id: 'openai', label: 'OpenAI', defaultBaseUrl: 'https://api.openai.com/v1', protocol: 'openai',
    embeddings: true, keyRequired: true, quirks: OPENAI_LIKE,
  },
  anthropic: {
    id: 'anthropic', label: 'Anthropic', defaultBaseUrl: 'https://api.anthropic.com/v1', protocol: 'anthropic',
    embeddings: false, keyRequired: true,
    // Translated by core/providers/anthropic; the flags describe what that translation carries.
    quirks: { streamOptions: false, reasoningEffort: true, maxTokensField: 'max_tokens' },
  },
  gemini: {
    id: 'gemini', label: 'Google Gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    protocol: 'openai', embeddings: true, keyRequired: true,
    quirks: { streamOptions: true, reasoningEffort: true, maxTokensField: 'max_tokens', base64Embeddings: false, modelIdPrefix: 'models/' },
  },
  openrouter: {
    id: 'openrouter', label: 'OpenRouter', defaultBaseUrl: 'https://openrouter.ai/api/v1', protocol: 'openai',
    embeddings: false, keyRequired: true,
    quirks: { streamOptions: true, reasoningEffort: true, maxTokensField: 'max_tokens' },
  },
  groq: {
    id: 'groq', label: 'Groq', defaultBaseUrl: 'https://api.groq.com/openai/v1', protocol: 'openai',
    embeddings: false, keyRequired: true,
    quirks: { streamOptions: true, reasoningEffort: true, maxTokensField: 'max_completion_tokens' },
  },
  mistral: {
    id: 'mistral', label: 'Mistral', defaultBaseUrl: 'https://api.mistral.ai/v1', protocol: 'openai',
    embeddings: true, keyRequired: true,
    // Mistral validates strictly (422 on unknown fields), names the seed `random_seed`, and always
    // reports usage on its last stream chunk.
    quirks: {
      streamOptions: false, reasoningEffort: false, maxTokensField: 'max_tokens',
      rename: { seed: 'random_seed' }, drop: ['user', 'stream_options', 'reasoning_effort', 'max_completion_tokens'],
      base64Embeddings: false,
    },
  },
  deepseek: {
    id: 'deepseek', label: 'DeepSeek', defaultBaseUrl: 'https://api.deepseek.com/v1', protocol: 'openai',
    embeddings: false, keyRequired: true,
    quirks: { streamOptions: true, reasoningEffort: false, maxTokensField: 'max_tokens' },
  },
  together: {
    id: 'together', label: 'Together AI', defaultBaseUrl: 'https://api.together.xyz/v1', protocol: 'openai',
    embeddings: true, keyRequired: true,
    quirks: { streamOptions: true, reasoningEffort: true, maxTokensField: 'max_tokens', base64Embeddings: false },
  },
  'openai-compatible': {
    id: 'openai-compatible', label: 'OpenAI-compatible', defaultBaseUrl: undefined, protocol: 'openai',
    embeddings: true, keyRequired: false, quirks: OPENAI_LIKE,
  },
  local: {
    id: 'local', label: 'Local model server', defaultBaseUrl: undefined, protocol: 'openai',
    embeddings: true, keyRequired: false,
    // Ollama and llama.cpp's server ignore unknown fields; base64 support varies by version.
    quirks: { ...OPENAI_LIKE, base64Embeddings: false },
  },
};

export function providerSpec(id: ProviderId): ProviderSpec {
  return PROVIDERS[id];
}

export function isProviderId(s: string): s is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(s);
}

/** The base URL an account uses: its own (trailing slashes trimmed) or the provider's default.
 * Throws when neither exists (openai-compatible and local must name one). */
export function resolveBaseUrl(id: ProviderId, baseUrl?: string | null): string {
  const url = baseUrl?.trim() || PROVIDERS[id].defaultBaseUrl;
  if (!url) throw new Error(`provider ${id} needs a base URL`);
  return url.replace(/\/+$/, '');
}
