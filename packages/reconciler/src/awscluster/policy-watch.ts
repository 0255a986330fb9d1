import type { AWSCluster, AWSTagPolicy } from '@keymaster/api';
import { selectorMatches } from '@keymaster/identity';
import { isSelectedPolicy, policySelects } from '@keymaster/tagging';
import type { V1Namespace } from '@kubernetes/client-node';
import { requestFor } from '../runtime/builder.js';
import type { Request } from '../runtime/controller.js';
import type { Informer } from '../runtime/informer.js';

/** What finding a policy's clusters reads: the clusters by namespace, and the namespaces' labels. */
export interface PolicyWatchCaches {
  clusters: Pick<Informer<AWSCluster>, 'list'>;
  namespaces: Pick<Informer<V1Namespace>, 'list'>;
}

/**
 * The clusters an AWSTagPolicy's event concerns: every cluster for the global policy; for a selected
 * one, exactly those it selects now or selected before the change (a selector narrowed, or the policy
 * deleted, re-plans the clusters it leaves). When every version selects namespaces, only the
 * clusters of the namespaces it matches are read; a cluster's or a namespace's label change is the
 * cluster's own event (the AWSCluster watch and the namespace watch).
 */
export const clustersOfPolicy =
  (caches: PolicyWatchCaches) =>
  (policy: AWSTagPolicy, previous?: AWSTagPolicy): Request[] => {
    const versions = previous ? [policy, previous] : [policy];
    if (!versions.every(isSelectedPolicy)) return caches.clusters.list().map(requestFor);
    const labelsOf = new Map(
      caches.namespaces.list().map(({ metadata }) => [metadata?.name ?? '', metadata?.labels ?? {}]),
    );
    const labels = (cluster: AWSCluster) => labelsOf.get(cluster.metadata.namespace ?? '') ?? {};
    const byNamespace = versions.every((version) => version.spec.namespaceSelector !== undefined);
    const clusters = byNamespace
      ? [...labelsOf]
          .filter(([, namespaceLabels]) =>
            versions.some((version) => selectorMatches(version.spec.namespaceSelector!, namespaceLabels)),
          )
          .flatMap(([namespace]) => caches.clusters.list(namespace))
      : caches.clusters.list();
    return clusters
      .filter((cluster) => versions.some((version) => policySelects(version, cluster, labels(cluster))))
      .map(requestFor);
  };
