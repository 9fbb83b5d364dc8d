/** Pure text, so the command, install.sh and the tests share one source. */
export interface UnitOptions {
  /** Absolute path of the installed svc binary. */
  bin: string;
  user: string;
  envFile: string;
  /** Writable: SQLite file, development secrets, scheduler lock. */
  dataDir: string;
  /** `svc worker --stop-timeout` in ms; TimeoutStopSec is set well above it. */
  workerStopTimeoutMs: number;
}

export const UNIT_DEFAULTS: Omit<UnitOptions, 'bin'> = {
  user: 'svc',
  envFile: '/etc/svc/svc.env',
  dataDir: '/var/lib/svc',
  workerStopTimeoutMs: 30_000,
};

// svc needs only the network, its data directory and /tmp (native addon).
const hardening = (dataDir: string) => `NoNewPrivileges=true
ProtectSystem=strict
ReadWritePaths=${dataDir}
PrivateTmp=true
PrivateDevices=true
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectControlGroups=true
RestrictSUIDSGID=true
LockPersonality=true
UMask=0077`;

const common = (o: UnitOptions) => `User=${o.user}
Group=${o.user}
WorkingDirectory=${o.dataDir}
# Defaults; the environment file overrides them (it is read after Environment=).
Environment=NODE_ENV=production
Environment=SERVICE_DB_PATH=${o.dataDir}/svc.db
Environment=XDG_CACHE_HOME=${o.dataDir}/cache
EnvironmentFile=${o.envFile}
Restart=always
RestartSec=2
KillSignal=SIGTERM`;

export function serveUnit(o: UnitOptions): string {
  return `[Unit]
Description=svc — agent runner and inference gateway (HTTP service)
Wants=network-online.target
After=network-online.target postgresql.service

[Service]
Type=simple
ExecStart=${o.bin} serve
${common(o)}
# svc serve drains requests for SERVICE_SHUTDOWN_TIMEOUT_MS (default 10 s) on SIGTERM.
TimeoutStopSec=30
${hardening(o.dataDir)}

[Install]
WantedBy=multi-user.target
`;
}

export function workerUnit(o: UnitOptions): string {
  const stopSec = Math.ceil(o.workerStopTimeoutMs / 1000) + 15;
  return `[Unit]
Description=svc queue worker %i (queued agent runs, scheduled work, notifications)
Wants=network-online.target
After=network-online.target svc.service postgresql.service

[Service]
Type=simple
ExecStart=${o.bin} worker --stop-timeout ${o.workerStopTimeoutMs}
${common(o)}
# On SIGTERM the worker stops claiming and gives in-flight runs --stop-timeout to finish or hand
# back; systemd waits longer than that before SIGKILL.
TimeoutStopSec=${stopSec}
${hardening(o.dataDir)}

[Install]
WantedBy=multi-user.target
`;
}
