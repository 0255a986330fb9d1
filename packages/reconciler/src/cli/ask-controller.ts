import type { KubeConfig } from '@kubernetes/client-node';
import type { InspectFlags } from './inspect-flags.js';

/**
 * What the running controller answers through its inspect API, or undefined when the API server has
 * no such API (Keymaster installed without it): the command then works on this machine, and says so.
 */
export async function askController<T>(
  flags: InspectFlags,
  ask: (kubeConfig: KubeConfig) => Promise<T>,
): Promise<T | undefined> {
  const [{ checkedKubeConfig }, { InspectApiMissing }] = await Promise.all([
    import('./startup.js'),
    import('../inspect-api/client.js'),
  ]);
  const kubeConfig = await checkedKubeConfig(flags);
  try {
    return await ask(kubeConfig);
  } catch (error) {
    if (!(error instanceof InspectApiMissing)) throw error;
    process.stderr.write(`keymaster: ${error.message}: working on this machine, as with --local\n`);
    return undefined;
  }
}
