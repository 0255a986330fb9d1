import { GROUP, KeymasterError, VERSION, type AWSCluster } from '@keymaster/api';
import { KubeAccessError, kubeAccessError, kubeRead } from '../kube/access-error.js';
import type { InspectContext } from './context.js';
import { objectKey } from '../runtime/object-key.js';

/** Which AWSClusters a command looks at: one, a namespace's, or all. */
export type Targets = { cluster: { namespace: string; name: string } } | { namespace: string } | { all: true };

export const clusterKeyOf = (cluster: AWSCluster): string => objectKey(cluster.metadata);

/** AWSClusters in namespace/name order. */
export const byClusterKey = (a: AWSCluster, b: AWSCluster) => clusterKeyOf(a).localeCompare(clusterKeyOf(b));

/** A cluster named that does not exist, and how to list those that do. */
export const clusterNotFound = (namespace: string, name: string) =>
  new KeymasterError('ERR_KEYMASTER_CLUSTER_NOT_FOUND', `AWSCluster ${namespace}/${name} not found`, {
    hint: `\`kubectl get awsclusters.${GROUP} -n ${namespace}\` lists the clusters of that namespace.`,
  });

const RESOURCE = `awsclusters.${GROUP}`;

/**
 * The AWSClusters named, in namespace/name order. A cluster named that does not exist, or that the
 * user may not read, is an error that says so (a KubeAccessError: the RBAC verb it lacks, the fix).
 */
export async function findClusters(context: InspectContext, targets: Targets): Promise<AWSCluster[]> {
  const { custom } = context;
  if ('all' in targets) {
    const all = await context.allClusters().catch((error: unknown) => {
      // A tenant may list its own namespace's clusters: the refusal says so.
      throw error instanceof KubeAccessError && error.forbidden
        ? kubeAccessError(
            error.cause,
            'list the AWSClusters of every namespace (-A)',
            error.request,
            'ask the platform team for it, or give -n NAMESPACE, a namespace you may read',
          )
        : error;
    });
    return [...all].sort(byClusterKey);
  }
  if ('namespace' in targets) {
    const { namespace } = targets;
    const list = await kubeRead(
      `list the AWSClusters of namespace ${namespace}`,
      { verb: 'list', resource: RESOURCE, namespace },
      () =>
        custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: 'awsclusters',
        }) as Promise<{
          items: AWSCluster[];
        }>,
      'ask the platform team for it, or name a namespace you may read',
    );
    return list.items.sort(byClusterKey);
  }
  const { namespace, name } = targets.cluster;
  const cluster = await kubeRead(
    `read AWSCluster ${namespace}/${name}`,
    { verb: 'get', resource: RESOURCE, namespace, name },
    () =>
      custom
        .getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'awsclusters', name })
        .catch((error: unknown) => {
          if ((error as { code?: number }).code === 404) return undefined;
          throw error;
        }) as Promise<AWSCluster | undefined>,
    'ask the platform team for it, or name a cluster of a namespace you may read',
  );
  if (!cluster) throw clusterNotFound(namespace, name);
  return [cluster];
}
