import { checkConfig } from './config-checks.ts';
import { checkDataDir } from './fs-checks.ts';
import { checkPreviewSite } from './preview-checks.ts';
import { checkLocalTarget } from './target-checks.ts';
import type { Finding } from './types.ts';

export type { Finding, FindingStatus } from './types.ts';
export { healthy } from './types.ts';

/** Every check `svc doctor` makes, in the order an operator fixes things. */
export async function runDoctor(env: NodeJS.ProcessEnv): Promise<Finding[]> {
  const { config, findings } = checkConfig(env);
  if (!config) return findings;
  findings.push(...checkPreviewSite(config), ...checkDataDir(config));
  const [{ checkStore }, { checkSandbox }] = await Promise.all([import('./store-checks.ts'), import('./sandbox-checks.ts')]);
  const [store, target, sandbox] = await Promise.all([checkStore(config), checkLocalTarget(config), checkSandbox(config)]);
  findings.push(...store, ...target, ...sandbox);
  return findings;
}
