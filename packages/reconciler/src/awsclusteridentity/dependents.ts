import type { AWSCluster } from '@keymaster/api';
import { chainDependencies, type IdentityStore } from '@keymaster/identity';
import type { Request } from '../runtime/controller.js';
import { objectKey } from '../runtime/object-key.js';

/** `namespace/name` of a cluster. */
export const clusterKey = (cluster: AWSCluster): string => objectKey(cluster.metadata);

/** A cluster as the work queue asks for it. */
export const clusterRequest = (cluster: AWSCluster): Request => ({
  namespace: cluster.metadata.namespace ?? '',
  name: cluster.metadata.name ?? '',
});

/** What one cluster's chain reaches (identities and Secrets), from the caches: no API call. */
export const clusterDependencies = (
  store: IdentityStore,
  controllerNamespace: string,
  cluster: AWSCluster,
): Promise<string[]> =>
  chainDependencies(store, {
    namespace: cluster.metadata.namespace ?? '',
    identityRef: cluster.spec.identityRef,
    controllerNamespace,
  });

/** The clusters whose chain reaches `dependency` (`Kind/name` or `Secret/name`), in `namespace/name` order. */
export async function clustersReaching(
  store: IdentityStore,
  controllerNamespace: string,
  clusters: readonly AWSCluster[],
  dependency: string,
): Promise<AWSCluster[]> {
  const reaching: AWSCluster[] = [];
  for (const cluster of clusters) {
    if ((await clusterDependencies(store, controllerNamespace, cluster)).includes(dependency)) reaching.push(cluster);
  }
  return reaching.sort((a, b) => (clusterKey(a) < clusterKey(b) ? -1 : 1));
}

/** `namespace/name` of the clusters whose chain reaches `dependency`, sorted. */
export const dependentClusters = async (
  store: IdentityStore,
  controllerNamespace: string,
  clusters: readonly AWSCluster[],
  dependency: string,
): Promise<string[]> => (await clustersReaching(store, controllerNamespace, clusters, dependency)).map(clusterKey);
