import { ConfigError, loadConfig, type Config } from '../kernel/config/index.ts';
import type { Finding } from './types.ts';

/** The messages `svc serve` gives, as findings. */
export function checkConfig(env: NodeJS.ProcessEnv): { config?: Config; findings: Finding[] } {
  try {
    const { config, warnings } = loadConfig(env);
    const findings: Finding[] = [{ check: 'config', status: 'ok', message: `environment parsed (${config.NODE_ENV}, store ${config.SERVICE_STORE})` }];
    if (!config.registrationModeValid) {
      findings.push({
        check: 'config.registration',
        status: 'fail',
        message: `SERVICE_REGISTRATION_MODE="${config.SERVICE_REGISTRATION_MODE}" is not a known mode; registration answers 500 registration_misconfigured`,
        fix: 'set SERVICE_REGISTRATION_MODE=invite_only (recommended) or SERVICE_REGISTRATION_MODE=open',
      });
    }
    findings.push(...checkExposure(config));
    for (const w of warnings) {
      if (w.startsWith('SERVICE_REGISTRATION_MODE:')) continue; // reported above as a failure
      findings.push({ check: 'config', status: 'warn', message: w });
    }
    return { config, findings };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return {
      findings: err.problems.map((p) => ({
        check: 'config',
        status: 'fail' as const,
        message: p,
        fix: `set ${p.split(':')[0]} correctly (see README, Configuration)`,
      })),
    };
  }
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/** Plain http beyond loopback sends passwords and cookies in clear text. */
export function checkExposure(config: Config): Finding[] {
  if (LOOPBACK_HOST.test(config.SERVICE_HOST) || new URL(config.SERVICE_APP_ORIGIN).protocol === 'https:') return [];
  return [{
    check: 'config.exposure',
    status: 'warn',
    message: `SERVICE_HOST=${config.SERVICE_HOST} listens beyond this machine but SERVICE_APP_ORIGIN is ${config.SERVICE_APP_ORIGIN}: passwords and session cookies cross the network unencrypted`,
    fix: 'keep SERVICE_HOST=127.0.0.1 and put a TLS reverse proxy in front (docs/deploy.md); on a trusted LAN only, accept the risk',
  }];
}
