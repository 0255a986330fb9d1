import { GROUP, KeymasterError, VERSION, type AWSCluster } from '@keymaster/api';
import type { InspectContext } from './context.js';

/** Which AWSClusters a command looks at: one, a namespace's, or all. */
export type Targets = { cluster: { namespace: string; name: string } } | { namespace: string } | { all: true };

export const clusterKeyOf = (cluster: AWSCluster): string =>
  `${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`;

const byKey = (a: AWSCluster, b: AWSCluster) => clusterKeyOf(a).localeCompare(clusterKeyOf(b));

/** The AWSClusters named, in namespace/name order; a cluster named that does not exist is an error. */
export async function findClusters(context: InspectContext, targets: Targets): Promise<AWSCluster[]> {
  const { custom } = context;
  if ('all' in targets) return [...(await context.allClusters())].sort(byKey);
  if ('namespace' in targets) {
    const list = (await custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: targets.namespace,
      plural: 'awsclusters',
    })) as { items: AWSCluster[] };
    return list.items.sort(byKey);
  }
  const { namespace, name } = targets.cluster;
  try {
    return [
      (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: 'awsclusters',
        name,
      })) as AWSCluster,
    ];
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    throw new KeymasterError('ERR_KEYMASTER_CLUSTER_NOT_FOUND', `AWSCluster ${namespace}/${name} not found`, {
      hint: `\`kubectl get awsclusters.infrastructure.keymaster.dev -n ${namespace}\` lists the clusters of that namespace.`,
    });
  }
}
