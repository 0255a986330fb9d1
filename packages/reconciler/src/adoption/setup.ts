import type { AWSCluster } from '@keymaster/api';
import type { V1Namespace } from '@kubernetes/client-node';
import type { ControllerContext } from '../context.js';
import { controllerFor } from '../runtime/builder.js';
import type { Request } from '../runtime/controller.js';
import { labelsChanged, specOrMetadataChanged } from '../runtime/predicates.js';
import type { AdoptionCaches } from './adoption-caches.js';
import type { CapaObject, ClusterAPICluster } from './capa-objects.js';
import { CompanionWriter } from './companion-writer.js';
import { AdoptionReconciler } from './reconciler.js';

/** Cluster API's label --watch-filter selects by, on Clusters as on Keymaster's AWSClusters. */
const WATCH_FILTER_LABEL = 'cluster.x-k8s.io/watch-filter';

/**
 * The adoption controller (--adopt-cluster-api): one request per Cluster API Cluster, named as its
 * companion AWSCluster. It hears of the Clusters, CAPA's objects they name, the companions (an edit
 * by anyone else is written back) and the namespaces' adopt label.
 */
export function setupAdoptionController(context: ControllerContext, adoption: AdoptionCaches): void {
  const { manager, caches, options } = context;
  const reconciler = new AdoptionReconciler({
    clusters: adoption.clusters,
    namespaces: adoption.namespaces,
    companions: caches.clusters,
    watched: (cluster) =>
      (!options.watchNamespace || cluster.metadata.namespace === options.watchNamespace) &&
      (!options.watchFilter || cluster.metadata.labels?.[WATCH_FILTER_LABEL] === options.watchFilter),
    capa: {
      awsCluster: (name, namespace) => adoption.awsClusters.get(name, namespace),
      managedCluster: (name, namespace) => adoption.managedClusters.get(name, namespace),
      controlPlane: (name, namespace) => adoption.controlPlanes.get(name, namespace),
    },
    writes: new CompanionWriter(options.kubeConfig),
    events: context.events,
    logger: options.logger,
  });
  /** The Clusters of the object's namespace whose infrastructure or control plane reference names it. */
  const clustersNaming =
    (reference: 'infrastructureRef' | 'controlPlaneRef') =>
    (object: CapaObject): Request[] => {
      const { name, namespace = '' } = object.metadata;
      return adoption.clusters
        .list(namespace)
        .filter((cluster) => cluster.spec?.[reference]?.name === name)
        .map((cluster) => ({ namespace, name: cluster.metadata.name ?? '' }));
    };
  // A namespace labelled or unlabelled: its Clusters, and the companions whose Cluster is gone.
  const ofNamespace = (namespace: V1Namespace): Request[] => {
    const name = namespace.metadata?.name ?? '';
    const named = [...adoption.clusters.list(name), ...caches.clusters.list(name)].map(
      (object) => object.metadata.name ?? '',
    );
    return [...new Set(named)].map((cluster) => ({ namespace: name, name: cluster }));
  };
  // As many workers as the AWSCluster controller: each companion is a write, and a fleet adopted at once
  // would otherwise reach the tag work one write at a time, too spread for clusters to share a scan or a call.
  controllerFor<ClusterAPICluster>(manager, 'adoption', adoption.clusters)
    .withWorkers(options.maxConcurrentReconciles)
    .withPredicate(specOrMetadataChanged)
    .watches<CapaObject>(adoption.awsClusters, clustersNaming('infrastructureRef'), specOrMetadataChanged)
    .watches<CapaObject>(adoption.managedClusters, clustersNaming('infrastructureRef'), specOrMetadataChanged)
    .watches<CapaObject>(adoption.controlPlanes, clustersNaming('controlPlaneRef'), specOrMetadataChanged)
    .watches<AWSCluster>(
      caches.clusters,
      (cluster) => [{ namespace: cluster.metadata.namespace ?? '', name: cluster.metadata.name ?? '' }],
      specOrMetadataChanged,
    )
    .watches<V1Namespace>(caches.namespaces, ofNamespace, labelsChanged)
    .complete(reconciler.reconcile);
}
