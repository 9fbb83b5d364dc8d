import type { Core } from '../index.ts';
import type { ProviderAccountDeps } from '../provider-accounts/service.ts';
import { createProviderEngine } from '../providers/engine.ts';
import type { ProviderEngine } from '../providers/types.ts';
import { LimitsStore } from '../quota/limits.ts';
import { QuotaService } from '../quota/service.ts';
import { UsageRecorder } from '../usage/recorder.ts';
import type { Vault } from '../vault/index.ts';
import { Catalogue } from './catalogue.ts';
import { gatewayMetrics, type GatewayMetrics } from './metrics.ts';
import { Gateway } from './service.ts';
import { ConduitSettings } from './settings.ts';

export interface GatewayRuntime {
  gateway: Gateway;
  engine: ProviderEngine;
  catalogue: Catalogue;
  quota: QuotaService;
  limits: LimitsStore;
  usage: UsageRecorder;
  conduit: ConduitSettings;
  vault: Vault;
  accounts: ProviderAccountDeps;
  metrics: GatewayMetrics;
}

export interface GatewayOptions {
  /** For tests; default: undici pools per upstream. */
  engine?: ProviderEngine;
  usageFlushMs?: number;
}

/** The gateway's parts for one Core; usage is flushed and pools closed when the Core closes. */
export function createGateway(core: Core, accounts: ProviderAccountDeps, opts: GatewayOptions = {}): GatewayRuntime {
  const { db, clock, log, config } = core;
  const { vault, allowedPrivateHosts } = accounts;
  // Bounds the silence between chunks too, so a stall cannot hold the client and quota.
  const timeout = config.SERVICE_UPSTREAM_TIMEOUT_MS;
  const engine = opts.engine ?? createProviderEngine({ headersTimeoutMs: timeout, bodyTimeoutMs: timeout, allowedPrivateHosts });
  const usage = new UsageRecorder({ db, clock, log }, opts.usageFlushMs === undefined ? {} : { intervalMs: opts.usageFlushMs });
  const orNull = (n: number) => (n === 0 ? null : n);
  const limits = new LimitsStore({ db, clock }, {
    requestsPerMinute: orNull(config.SERVICE_GATEWAY_DEFAULT_RPM),
    tokensPerMinute: orNull(config.SERVICE_GATEWAY_DEFAULT_TPM),
    tokensPerMonth: null,
  }, undefined, {
    // SPEC: a per-user chat allowance, apart from agent runs; admins may override it.
    requestsPerMinute: config.RATE_LIMIT_CHAT_PER_MINUTE,
    tokensPerMinute: null,
    tokensPerMonth: null,
  });
  const quota = new QuotaService({ db, clock, limits, flushUsage: () => usage.flush() });
  const catalogue = new Catalogue({ engine, accounts, clock, log });
  const conduit = new ConduitSettings({ db, clock });
  const metrics = gatewayMetrics(core.metrics.registry);
  const gateway = new Gateway({ engine, catalogue, quota, usage, conduit, metrics, clock, log });
  const rt: GatewayRuntime = { gateway, engine, catalogue, quota, limits, usage, conduit, vault, accounts, metrics };
  core.onClose(async () => {
    await usage.close();
    await engine.close();
  });
  return rt;
}
