import type { AWSCluster } from '@keymaster/api';
import { chainDependencies, type IdentityStore } from '@keymaster/identity';

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

/** `namespace/name` of the clusters whose chain reaches `dependency` (`Kind/name` or `Secret/name`), sorted. */
export async function dependentClusters(
  store: IdentityStore,
  controllerNamespace: string,
  clusters: readonly AWSCluster[],
  dependency: string,
): Promise<string[]> {
  const dependents: string[] = [];
  for (const cluster of clusters) {
    if ((await clusterDependencies(store, controllerNamespace, cluster)).includes(dependency)) {
      dependents.push(`${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`);
    }
  }
  return dependents.sort();
}
