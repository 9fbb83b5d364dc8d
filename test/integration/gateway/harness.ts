// A running gateway for SDK tests: a real HTTP server (startServer) on a real store, a signed-in
// cast, an openai-compatible provider account pointed at an in-repo fake, and a member key.
import OpenAI from 'openai';
import type { Core } from '../../../core/index.ts';
import type { Services } from '../../../core/services.ts';
import { createApp } from '../../../daemon/app.ts';
import { startServer } from '../../../daemon/server.ts';
import { fakeOpenAi, fakeAnthropic } from '../../helpers/fake-upstream.ts';
import { testCore, type Fixture, type FixtureOptions } from '../http-fixture.ts';
import { cast, json, type Cast } from '../people.ts';

export type Fake = Awaited<ReturnType<typeof fakeOpenAi>>;

export interface Gateway {
  fx: Fixture;
  core: Core;
  services: Services;
  people: Cast;
  base: string;
  /** The OpenAI fake behind provider account slug `fake` (models fake/gpt-test, fake/text-embed). */
  openai: Fake;
  /** The Anthropic fake behind slug `claude` (model claude/claude-test). */
  anthropic: Fake;
  memberKey: string;
  sdk(key?: string): OpenAI;
  /** Calls an /api/app route as a person of the cast. */
  app(path: string, init: RequestInit): Promise<Response> | Response;
  close(): Promise<void>;
}

export async function startGateway(opts: FixtureOptions = {}): Promise<Gateway> {
  // The fake upstreams listen on loopback: allowed as an operator allows a LAN model server.
  const fx = await testCore({ ...opts, env: { SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', ...opts.env } });
  const people = await cast(fx.core);
  const app = createApp(fx.core, fx.services);
  const server = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
  const base = `http://127.0.0.1:${server.port}`;
  const openai = await fakeOpenAi();
  const anthropic = await fakeAnthropic({ apiKey: 'sk-ant-test' });
  const asOwner = (path: string, init: RequestInit) =>
    app.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), ...people.owner.headers({ workspace: people.workspace }) } });
  const mk = async (body: unknown) => {
    const r = await asOwner('/api/app/provider-accounts', json('POST', body));
    if (r.status !== 201) throw new Error(`provider account: ${r.status} ${await r.text()}`);
  };
  await mk({ provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: openai.url, models: ['gpt-test', 'text-embed'] });
  await mk({ provider: 'anthropic', name: 'Claude', slug: 'claude', baseUrl: anthropic.url, apiKey: 'sk-ant-test', models: ['claude-test'] });
  const keyRes = await app.request('/api/app/keys', json('POST', { name: 'sdk' }, people.member.headers({ workspace: people.workspace })));
  const memberKey = ((await keyRes.json()) as { token: string }).token;
  return {
    fx,
    core: fx.core,
    services: fx.services,
    people,
    base,
    openai,
    anthropic,
    memberKey,
    sdk: (key = memberKey) => new OpenAI({ baseURL: `${base}/api/v1`, apiKey: key, maxRetries: 0 }),
    app: asOwner,
    async close() {
      await server.close(1000);
      await openai.close();
      await anthropic.close();
      await fx.cleanup();
    },
  };
}
