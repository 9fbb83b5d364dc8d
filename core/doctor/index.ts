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
  const { checkStore } = await import('./store-checks.ts');
  const [store, target] = await Promise.all([checkStore(config), checkLocalTarget(config)]);
  findings.push(...store, ...target);
  return findings;
}
