import type { Clock } from '../kernel/clock.ts';
import { notFound } from '../kernel/errors.ts';
import { UpstreamError, type ProviderEngine } from '../providers/types.ts';
import { getAccount, targetOf, type ProviderAccountDeps } from './service.ts';

export interface ConnectionTest {
  ok: boolean;
  accountId: string;
  /** The provider's model ids (unprefixed), when it answered. */
  models?: string[];
  /** Why the test failed, in words an operator can act on. */
  error?: { code: string; message: string };
  latencyMs: number;
}

const MAX_MESSAGE = 300;

/**
 * The model list: the cheapest call proving URL, key and network path.
 * A failure is a result, not an error; the usual address guard applies.
 */
export async function testConnection(deps: ProviderAccountDeps & { engine: ProviderEngine; clock: Clock }, workspaceId: string, id: string): Promise<ConnectionTest> {
  const account = await getAccount(deps, workspaceId, id);
  if (!account) throw notFound('Provider account');
  const t0 = deps.clock.now();
  const done = (r: Omit<ConnectionTest, 'accountId' | 'latencyMs'>): ConnectionTest => ({ accountId: account.id, ...r, latencyMs: Math.max(0, deps.clock.now() - t0) });
  const target = await targetOf(deps, workspaceId, id);
  if (!target) return done({ ok: false, error: { code: 'account_disabled', message: 'This provider account is disabled; enable it first.' } });
  try {
    const models = await deps.engine.listModels(target, AbortSignal.timeout(10_000));
    return done({ ok: true, models });
  } catch (err) {
    return done({ ok: false, error: describe(err, target.baseUrl) });
  }
}

function describe(err: unknown, baseUrl: string): { code: string; message: string } {
  const cut = (s: string) => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s);
  const netCode = (err as { cause?: { code?: unknown } })?.cause?.code;
  if (err instanceof UpstreamError && typeof netCode === 'string') {
    // The engine's own 502: no answer at all (refused, DNS, reset).
    return { code: 'unreachable', message: cut(`${baseUrl} could not be reached (${netCode}). Check the base URL and that the server is running.`) };
  }
  if (err instanceof UpstreamError) {
    const code = err.status === 401 || err.status === 403 ? 'upstream_auth' : `upstream_${err.status}`;
    const hint = code === 'upstream_auth' ? ' Check the API key.' : '';
    return { code, message: cut(`${baseUrl} answered ${err.status}: ${err.body.error.message}.${hint}`) };
  }
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return { code: 'timeout', message: `${baseUrl} did not answer within 10 s.` };
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return { code: 'unreachable', message: cut(`${baseUrl} could not be reached (${cause}). Check the base URL and that the server is running.`) };
}
