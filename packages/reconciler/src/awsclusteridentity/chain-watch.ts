import { CAPA_GROUP, type AWSCluster } from '@keymaster/api';
import type { IdentityObject, LinkName } from '@keymaster/identity';
import type { V1Namespace } from '@kubernetes/client-node';
import type { ControllerContext } from '../context.js';
import { onChange } from '../runtime/builder.js';
import { labelsChanged, specOrMetadataChanged } from '../runtime/predicates.js';

/**
 * Keeps the chain index current: a cluster's chain is walked again when the cluster changes, or
 * something its chain reaches (an identity, a Secret, its namespace's labels) does; the identities it
 * reached before or reaches now are looked at again, since their users may have changed.
 */
export function watchChains(context: ControllerContext): void {
  const { caches, chains, identityChanges } = context;
  // A namespaced identity a cluster reaches is of the cluster's namespace: the only one that can name it.
  // CAPA's identities have no controller here (read, never written): their users are not told.
  const sendAll = (identities: readonly LinkName[], cluster: AWSCluster) => {
    for (const { apiGroup, ...identity } of identities)
      if (!apiGroup) identityChanges.send({ ...identity, namespace: cluster.metadata.namespace ?? '' });
  };
  const walk = (clusters: readonly AWSCluster[]) => {
    for (const cluster of clusters) void chains.index(cluster).then((identities) => sendAll(identities, cluster));
  };
  const cached = (clusters: readonly { namespace?: string; name: string }[]) =>
    clusters.map(({ namespace, name }) => caches.clusters.get(name, namespace)).filter((cluster) => !!cluster);
  caches.clusters.addHandlers({
    ...onChange((cluster: AWSCluster) => walk([cluster]), [specOrMetadataChanged]),
    delete: (cluster) => sendAll(chains.remove(cluster), cluster),
  });
  for (const identities of Object.values(caches.identities))
    identities.addHandlers(
      onChange(
        (identity: IdentityObject) =>
          walk(cached(chains.clustersReaching({ kind: identity.kind, name: identity.metadata.name ?? '' }))),
        [specOrMetadataChanged],
      ),
    );
  for (const identities of Object.values(caches.capaIdentities))
    identities.addHandlers(
      onChange(
        (identity: IdentityObject) =>
          walk(
            cached(
              chains.clustersReaching({
                apiGroup: CAPA_GROUP,
                kind: identity.kind,
                name: identity.metadata.name ?? '',
              }),
            ),
          ),
        [specOrMetadataChanged],
      ),
    );
  for (const secrets of [caches.secrets, caches.capaSecrets])
    secrets?.addHandlers(
      onChange((secret) => walk(cached(chains.clustersReachingSecret(secret.metadata?.name ?? '')))),
    );
  caches.namespaces.addHandlers(
    onChange<V1Namespace>(
      (namespace) => {
        if (namespace.metadata?.name) walk(caches.clusters.list(namespace.metadata.name));
      },
      [labelsChanged],
    ),
  );
}
