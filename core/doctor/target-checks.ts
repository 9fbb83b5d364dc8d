import type { Config } from '../kernel/config/index.ts';
import type { Finding } from './types.ts';

/** The local model target answers `GET {base}/models` within the timeout. */
export async function checkLocalTarget(config: Config, timeoutMs = 3000): Promise<Finding[]> {
  const base = config.localLlmBaseUrl;
  if (!base) {
    return [{ check: 'local-model', status: 'ok', message: 'no local model target configured (LOCAL_LLM_BASE_URL unset)' }];
  }
  const url = `${base.replace(/\/+$/, '')}/models`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      return [{ check: 'local-model', status: 'fail', message: `GET ${url} answered ${res.status}`, fix: 'check that LOCAL_LLM_BASE_URL points at the server\'s OpenAI-compatible base (usually ending in /v1)' }];
    }
    const body = (await res.json().catch(() => null)) as { data?: unknown[] } | null;
    const n = Array.isArray(body?.data) ? body.data.length : 0;
    return [{ check: 'local-model', status: n > 0 ? 'ok' : 'warn', message: `GET ${url}: ${n} model(s)`, ...(n === 0 ? { fix: 'pull or load a model on the local server' } : {}) }];
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return [{
      check: 'local-model',
      status: 'fail',
      message: `GET ${url} ${timedOut ? `timed out after ${timeoutMs} ms` : `failed: ${networkCause(err)}`}`,
      fix: 'start the local model server, or correct/unset LOCAL_LLM_BASE_URL (and OLLAMA_BASE_URL)',
    }];
  }
}

/** fetch() says "fetch failed"; the reason is on its cause. */
export function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (!cause) return (err as Error).message;
  return cause.code && !cause.message?.includes(cause.code) ? `${cause.code}: ${cause.message}` : (cause.message ?? String(cause.code));
}
