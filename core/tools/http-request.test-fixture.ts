// Shared by the http-request tests.
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/http-target.ts';
import type { Resolver } from '../net/http-guard.ts';
import { httpRequestTool, type HttpRequestConfig } from './http-request.ts';
import type { ToolLimits } from './types.ts';

export const limits = (over: Partial<ToolLimits> = {}): ToolLimits => ({
  httpTimeoutMs: 5000,
  httpMaxResponseBytes: 1024 * 1024,
  httpMaxRequestBytes: 256 * 1024,
  httpAllowPrivate: true,
  httpAllowedHosts: [],
  ...over,
});
export const ctx = (over: Partial<ToolLimits> = {}, signal = new AbortController().signal) => ({ signal, limits: limits(over) });
export const call = (args: unknown, over: Partial<ToolLimits> = {}, config: HttpRequestConfig = {}, tool = httpRequestTool) =>
  tool.execute(args, config, ctx(over));
export const bodyOf = (result: string) => result.slice(result.indexOf('\n\n') + 2);
export const echoed = (result: string) =>
  JSON.parse(bodyOf(result)) as { method: string; headers: Record<string, string>; body: string; url: string };

/** Fixed answers; every question is counted. */
export function fakeDns(table: Record<string, readonly string[] | undefined>) {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
  };
  return { resolve, asked };
}

export interface Targets {
  /** 127.0.0.1 */
  a: TestServer;
  /** 127.0.0.2: a distinct address for redirect and rebinding tests */
  b: TestServer;
  /** ::1 */
  v6: TestServer;
}

export function useTargets(): Targets {
  const s = {} as Targets;
  beforeAll(async () => {
    [s.a, s.b, s.v6] = await Promise.all([startTestServer('127.0.0.1'), startTestServer('127.0.0.2'), startTestServer('::1')]);
  });
  afterAll(async () => {
    await Promise.all([s.a.close(), s.b.close(), s.v6.close()]);
  });
  return s;
}
