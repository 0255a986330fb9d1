import type { AWSCluster } from '@keymaster/api';
import type { V1Namespace } from '@kubernetes/client-node';
import type { ClusterAPICluster } from './capa-objects.js';
import { isCompanion } from './companion.js';
import { isAdopted } from './reconciler.js';

export type { ClusterAPICluster } from './capa-objects.js';
export { isClusterPaused } from './companion.js';

/** What `adoptedFrom` reads: the adoption caches (`ControllerContext.adoption`), or a test's fakes. */
export interface AdoptionLookup {
  clusters: { get(name: string, namespace?: string): ClusterAPICluster | undefined };
  namespaces: { get(name: string): V1Namespace | undefined };
}

/**
 * The Cluster API Cluster an AWSCluster is the companion of, or undefined: what makes its
 * spec.clusterAPI trustworthy (a tenant may write that field on any AWSCluster of its namespace).
 * A companion is owned by a Cluster of its namespace and name, by that Cluster's uid, in a namespace
 * labelled keymaster.dev/adopt=cluster-api, with --adopt-cluster-api on (`adoption` set).
 */
export function adoptedFrom(cluster: AWSCluster, adoption: AdoptionLookup | undefined): ClusterAPICluster | undefined {
  const { name = '', namespace = '' } = cluster.metadata;
  if (!adoption || !isAdopted(adoption.namespaces.get(namespace))) return undefined;
  const owner = adoption.clusters.get(name, namespace);
  return owner && isCompanion(cluster, owner.metadata.uid ?? '') ? owner : undefined;
}
