import type { LoginThrottles } from './accounts/login.ts';
import type { FailureThrottle } from './accounts/throttle.ts';
import type { AccountsDeps } from './accounts/types.ts';
import type { ActivationDeps } from './activation/service.ts';
import type { AgentDeps } from './agents/service.ts';
import { FileCache, TokenMemo, type PreviewDeps } from './apps/preview.ts';
import { previewLinkDeps, type PreviewLinkDeps } from './apps/service.ts';
import { previewKey } from './apps/token.ts';
import type { Clock } from './kernel/clock.ts';
import type { CredentialDeps } from './credentials/service.ts';
import type { GatewayOptions, GatewayRuntime } from './gateway/runtime.ts';
import type { Core } from './index.ts';
import type { DeliveryDeps } from './invitations/delivery.ts';
import type { InvitationDeps } from './invitations/service.ts';
import type { ProviderAccountDeps } from './provider-accounts/service.ts';
import type { ProviderEngine } from './providers/types.ts';
import { queueDepth } from './queue/repo.ts';
import { queueMetrics, type QueueMetrics } from './queue/metrics.ts';
import type { QueueRuntime } from './queue/runtime.ts';
import type { JobHandler } from './queue/worker.ts';
import type { RunsOptions } from './runs/runtime.ts';
import type { RunsService } from './runs/service.ts';
import type { Sandbox } from './sandbox/index.ts';
import type { Scheduler } from './scheduler/index.ts';
import type { ShareDeps } from './shares/service.ts';
import type { PublicShareDeps } from './shares/public-view.ts';
import type { Db } from './store/types.ts';
import { createVault } from './vault/index.ts';
import type { WorkerDeps } from './workers/service.ts';
import type { TriggerDeps } from './workers/trigger.ts';

/** Given once, at construction; tests fake the engine or speed up timers. */
export interface ServicesOptions {
  gateway?: GatewayOptions;
  runs?: RunsOptions;
}

/**
 * Every service of one process, each built on first access: `svc invite` touches the
 * invitations and never builds the gateway, the sandbox or the queue.
 */
export interface Services {
  readonly accounts: AccountsWithThrottles;
  readonly credentials: CredentialDeps;
  readonly invitations: InvitationDeps;
  readonly invitationDelivery: DeliveryDeps;
  readonly shares: ShareDeps;
  readonly publicShares: PublicShareDeps;
  readonly previewLinks: PreviewLinkDeps & { db: Db };
  readonly preview: PreviewDeps;
  readonly activation: ActivationDeps;
  readonly providerAccounts: ProviderAccountDeps;
  /** Provider accounts plus the engine: the "test the connection" button. */
  readonly providerTests: ProviderAccountDeps & { engine: ProviderEngine; clock: Clock };
  readonly agents: AgentDeps;
  /** Run reads that need no engine (the run page). */
  readonly runReads: { db: Db; clock: Clock };
  readonly workers: WorkerDeps;
  /** Webhook triggers of Workers and agents. */
  readonly triggers: TriggerDeps;
  readonly gateway: GatewayRuntime;
  readonly sandbox: Sandbox;
  readonly runs: RunsService;
  /** Every feature's job handlers, collected here. */
  readonly jobs: ReadonlyMap<string, JobHandler>;
  readonly queueMetrics: QueueMetrics;
  readonly queue: QueueRuntime;
  /** This process's scheduler component (not started). */
  readonly scheduler: Scheduler;
}

/** With this process's sign-up and login throttles (core/auth-runtime.ts). */
export type AccountsWithThrottles = AccountsDeps & { signups: FailureThrottle; throttles: LoginThrottles };

export const accountsDeps = (core: Core): AccountsWithThrottles => ({
  db: core.db,
  clock: core.clock,
  tokenKey: core.auth.tokenKey,
  csrfKey: core.auth.csrfKey,
  hasher: core.auth.hasher,
  registrationMode: core.config.SERVICE_REGISTRATION_MODE,
  // Read from core.auth at each use: the throttles are per-process state a test may replace.
  get signups() {
    return core.auth.signups;
  },
  get throttles() {
    return core.auth.throttles;
  },
});

export const credentialDeps = (core: Core): CredentialDeps => ({ db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey, cache: core.auth.credentialCache });

export const invitationDeps = (core: Core): InvitationDeps => ({ db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey, appOrigin: core.config.SERVICE_APP_ORIGIN });

export const shareDeps = (core: Core): ShareDeps => ({ db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey, appOrigin: core.config.SERVICE_APP_ORIGIN });

/** Loaded only by openServices, so `svc invite` and `svc user` never parse them. */
async function loadEngines() {
  const [gateway, sandbox, runs, runsSvc, runJobs, queue, scheduler, maintenance, workerJobs] = await Promise.all([
    import('./gateway/runtime.ts'),
    import('./sandbox/index.ts'),
    import('./runs/runtime.ts'),
    import('./runs/service.ts'),
    import('./runs/jobs.ts'),
    import('./queue/runtime.ts'),
    import('./scheduler/index.ts'),
    import('./scheduler/maintenance.ts'),
    import('./workers/jobs.ts'),
  ]);
  return {
    createGateway: gateway.createGateway,
    createSandbox: sandbox.createSandbox,
    createRuns: runs.createRuns,
    runsService: runsSvc.runsService,
    runJobHandler: runJobs.runJobHandler,
    createQueue: queue.createQueue,
    createScheduler: scheduler.createScheduler,
    maintenanceHandlers: maintenance.maintenanceHandlers,
    notifyKey: workerJobs.notifyKey,
    notifyOnEnd: workerJobs.notifyOnEnd,
    workerJobs: workerJobs.workerJobs,
  };
}

export type Engines = Awaited<ReturnType<typeof loadEngines>>;

/** Every service, the engines included: for processes that serve or work the queue. */
export async function openServices(core: Core, opts: ServicesOptions = {}): Promise<Services> {
  return createServices(core, opts, await loadEngines());
}

/** The one composition root. Without `engines` (terminal tools) the engine getters throw. */
export function createServices(core: Core, opts: ServicesOptions = {}, engines?: Engines): Services {
  const { db, clock, log, config, secrets } = core;
  const built = new Map<keyof Services, unknown>();
  const once = <K extends keyof Services>(key: K, build: () => Services[K]): Services[K] => {
    if (!built.has(key)) built.set(key, build());
    return built.get(key) as Services[K];
  };

  const e = (): Engines => {
    if (!engines) throw new Error('these services need the engines: build them with openServices');
    return engines;
  };

  const s: Services = {
    get accounts() {
      return once('accounts', () => accountsDeps(core));
    },
    get credentials() {
      return once('credentials', () => credentialDeps(core));
    },
    get invitations() {
      return once('invitations', () => invitationDeps(core));
    },
    get invitationDelivery() {
      return once('invitationDelivery', () => ({ db, clock, log, relayUrl: config.SERVICE_INVITATION_EMAIL_URL, secret: secrets.SERVICE_INVITATION_EMAIL_SECRET }));
    },
    get shares() {
      return once('shares', () => shareDeps(core));
    },
    get publicShares() {
      return once('publicShares', () => ({ db, clock, tokenKey: core.auth.tokenKey, preview: s.previewLinks }));
    },
    get previewLinks() {
      return once('previewLinks', () => ({ ...previewLinkDeps(config, secrets, clock), db }));
    },
    get preview() {
      return once('preview', () => ({ db, key: previewKey(secrets.SERVICE_PREVIEW_SECRET), clock, cache: new FileCache(), tokens: new TokenMemo() }));
    },
    get activation() {
      return once('activation', () => ({ db, localTargetConfigured: !!config.localLlmBaseUrl }));
    },
    get providerAccounts() {
      return once('providerAccounts', () => ({
        db,
        clock,
        vault: createVault(secrets.SERVICE_VAULT_KEY),
        localBaseUrl: config.localLlmBaseUrl,
        allowedPrivateHosts: config.SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS,
      }));
    },
    get providerTests() {
      return once('providerTests', () => ({ ...s.providerAccounts, engine: s.gateway.engine }));
    },
    get agents() {
      return once('agents', () => ({ db, clock, accounts: s.providerAccounts }));
    },
    get runReads() {
      return once('runReads', () => ({ db, clock }));
    },
    get workers() {
      return once('workers', () => ({ db, clock, tokenKey: core.auth.tokenKey, config }));
    },
    get triggers() {
      return once('triggers', () => {
        const runs = s.runs;
        return { tokenKey: core.auth.tokenKey, runs: runs.deps, limiter: runs.limiter, start: (v, i, l, w) => runs.starter.start(v, i, l, w) };
      });
    },
    get gateway() {
      return once('gateway', () => e().createGateway(core, s.providerAccounts, opts.gateway));
    },
    get sandbox() {
      return once('sandbox', () => {
        const made = e().createSandbox(config);
        // Closing the core kills what still runs in the sandbox.
        core.onClose(() => made.close());
        return made;
      });
    },
    get runs() {
      return once('runs', () => {
        // The end-of-run hook: a Worker's run enqueues its notification as it ends.
        const rt = e().createRuns(core, { gateway: s.gateway, sandbox: s.sandbox, onEnd: e().notifyOnEnd(clock) }, opts.runs);
        return e().runsService(rt, s.queueMetrics, config.RATE_LIMIT_CHAT_PER_MINUTE);
      });
    },
    get queueMetrics() {
      return once('queueMetrics', () => queueMetrics(core.metrics.registry, () => queueDepth(db)));
    },
    get jobs() {
      return once('jobs', () => {
        const runs = s.runs.deps;
        const { notifyKey, runJobHandler, maintenanceHandlers, workerJobs } = e();
        const notify = { db, clock, log, key: notifyKey(core), config };
        return new Map<string, JobHandler>([['run', runJobHandler(runs)], ...maintenanceHandlers({ db, clock, log }), ...workerJobs(runs, notify)]);
      });
    },
    get queue() {
      return once('queue', () => e().createQueue(core, s.jobs, s.queueMetrics));
    },
    get scheduler() {
      return once('scheduler', () => e().createScheduler(core, s.queueMetrics.leader));
    },
  };
  return s;
}
