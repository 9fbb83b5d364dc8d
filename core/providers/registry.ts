import { PROVIDER_IDS, type ProviderId } from './types.ts';

/** Providers as data: differences are quirks, not code. Fields are stripped only where
 * an upstream rejects them, since a stripped field is a feature lost. */
export type WireProtocol = 'openai' | 'anthropic';

export interface ProviderQuirks {
  /** Accepts `stream_options`; others send usage on their last chunk. */
  streamOptions: boolean;
  /** Accepts `reasoning_effort`; otherwise it is dropped. */
  reasoningEffort: boolean;
  /** The output-limit field it knows; the other is renamed. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Request fields renamed on the way out (e.g. Mistral's `random_seed`). */
  rename?: Readonly<Record<string, string>>;
  /** Fields it rejects (strict schemas answer 422). */
  drop?: readonly string[];
  /** Sends base64 embeddings itself; otherwise the engine encodes floats. */
  base64Embeddings?: boolean;
  /** On /models ids, unwanted by its chat endpoint. */
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
    // The flags describe core/providers/anthropic's translation.
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
    // Strict (422 on unknown fields); usage on its last chunk.
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

/** The account's own base URL, else the default; throws when neither exists. */
export function resolveBaseUrl(id: ProviderId, baseUrl?: string | null): string {
  const url = baseUrl?.trim() || PROVIDERS[id].defaultBaseUrl;
  if (!url) throw new Error(`provider ${id} needs a base URL`);
  return url.replace(/\/+$/, '');
}
