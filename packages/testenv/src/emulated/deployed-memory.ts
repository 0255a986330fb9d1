import type { V1Deployment } from '@kubernetes/client-node';
import { readManifests } from './manifests.js';
import { MANAGER_DIR } from './paths.js';

/** What deploy/manager gives the controller's container: Node's options (the heap limit) and the memory limit. */
export async function deployedMemory(): Promise<{ nodeOptions: string[]; limitMiB: number }> {
  const deployment = (await readManifests(MANAGER_DIR)).find(({ kind }) => kind === 'Deployment') as V1Deployment;
  const container = deployment.spec?.template.spec?.containers.find(({ name }) => name === 'manager');
  const nodeOptions = container?.env?.find(({ name }) => name === 'NODE_OPTIONS')?.value?.split(' ') ?? [];
  const limit = /^(\d+)Mi$/.exec(String(container?.resources?.limits?.['memory']))?.[1];
  if (limit === undefined) throw new Error(`${MANAGER_DIR}: the manager container has no memory limit in Mi`);
  return { nodeOptions, limitMiB: Number(limit) };
}
