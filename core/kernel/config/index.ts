export { loadConfig, checkProductionSecrets, ConfigError, MIN_SECRET_BYTES, REGISTRATION_MODES } from './load.ts';
export type { Config, LoadedConfig, Secrets } from './load.ts';
export { resolveSecrets } from './secrets.ts';
export type { ResolvedSecrets } from './secrets.ts';
export { SECRET_NAMES, envSchema, defaultDataDir } from './schema.ts';
export type { SecretName } from './schema.ts';
