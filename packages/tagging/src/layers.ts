import {
  ADOPT_LABEL,
  ADOPT_LABEL_VALUE,
  CLUSTER_API_LAYER,
  type AWSCluster,
  type AWSTagPolicy,
  type IdentityObject,
  type ObjectMeta,
  type ResourceTag,
  type TagSource,
} from '@keymaster/api';
import type { LayerName } from './problems.js';

/** Any identity kind's object: @keymaster/api's one union (`IdentityObject`), under tagging's name. */
export type AWSIdentity = IdentityObject;

/** The tags one object contributes, with the layer it belongs to. */
export interface TagLayer {
  layer: TagSource['layer'];
  /** The object, as provenance: `AWSTagPolicy/default`, `AWSClusterRoleIdentity/tenant-b`, `AWSCluster ns/name`. */
  object: string;
  tags: readonly ResourceTag[];
  /** Why the whole layer is left out (reported as one problem): a ClusterAPI layer Keymaster does not trust. */
  untrusted?: string;
}

/** The objects whose tags apply to one cluster's resources. */
export interface LayerObjects {
  /** The AWSTagPolicy `default`, when there is one. */
  policy?: AWSTagPolicy | undefined;
  /** The other AWSTagPolicies that select the cluster, in authority order (`selectedPolicies`). */
  selected?: readonly AWSTagPolicy[] | undefined;
  /** The cluster's identity chain, the cluster's own identity first (the order of status.identityChain). */
  identities: readonly AWSIdentity[];
  cluster: AWSCluster;
  /**
   * Whether the cluster is a companion Keymaster's adoption controller keeps for a Cluster API Cluster
   * (the reconcile decides, from what a tenant cannot write). Only then is its
   * `spec.clusterAPI.additionalTags` read, as the ClusterAPI layer; otherwise that layer is left out
   * and reported, so that a hand-made AWSCluster cannot exempt keys from the platform's layers.
   */
  clusterAPICompanion?: boolean | undefined;
}

/** The AWSTagPolicies of a cluster's layers. */
export type TagPolicies = Pick<LayerObjects, 'policy' | 'selected'>;

/** How provenance names an object: `Kind/name`, and `AWSCluster namespace/name` for clusters. */
export function describeObject(object: { kind: string; metadata: ObjectMeta }): string {
  const name = object.metadata.name ?? '';
  return object.kind === 'AWSCluster'
    ? `AWSCluster ${object.metadata.namespace ?? ''}/${name}`
    : `${object.kind}/${name}`;
}

/**
 * The layers of a cluster in authority order: the global policy, the policies that select it (the
 * winner among them last), then the identity chain from the link farthest from the cluster to its own
 * identity, then the cluster. A later layer overrides an earlier one unless the earlier tag says
 * `overridePolicy: Deny`; among selected policies precedence alone decides (`resolveEffectiveTags`).
 * After them, CAPA's tags of a companion (the ClusterAPI layer): keys Keymaster holds for CAPA.
 */
export function tagLayers({
  policy,
  selected = [],
  identities,
  cluster,
  clusterAPICompanion = false,
}: LayerObjects): TagLayer[] {
  const layers: TagLayer[] = [];
  if (policy) layers.push({ layer: 'Global', object: describeObject(policy), tags: policy.spec.resourceTags ?? [] });
  for (const chosen of selected) {
    layers.push({ layer: 'Selected', object: describeObject(chosen), tags: chosen.spec.resourceTags ?? [] });
  }
  for (const identity of [...identities].reverse()) {
    layers.push({ layer: 'Account', object: describeObject(identity), tags: identity.spec.resourceTags ?? [] });
  }
  const additionalTags = Object.entries(cluster.spec.additionalTags ?? {}).map(([key, value]) => ({ key, value }));
  layers.push({ layer: 'Cluster', object: describeObject(cluster), tags: additionalTags });
  const followed = cluster.spec.clusterAPI;
  const capaTags = Object.entries(followed?.additionalTags ?? {}).map(([key, value]) => ({ key, value }));
  if (followed === undefined || capaTags.length === 0) return layers;
  if (clusterAPICompanion) {
    // CAPA's object, as kubectl names a kind of another group: AWSCluster.infrastructure.cluster.x-k8s.io ns/name.
    const { kind, apiGroup, name } = followed.infrastructureRef;
    const object = `${kind}.${apiGroup} ${cluster.metadata.namespace ?? ''}/${name}`;
    layers.push({ layer: CLUSTER_API_LAYER, object, tags: capaTags });
  } else {
    // What a tenant wrote names nothing here: the provenance is the AWSCluster itself.
    const object = `${describeObject(cluster)} spec.clusterAPI`;
    layers.push({ layer: CLUSTER_API_LAYER, object, tags: capaTags, untrusted: UNTRUSTED_CLUSTER_API });
  }
  return layers;
}

const UNTRUSTED_CLUSTER_API =
  `spec.clusterAPI is ignored: only a companion AWSCluster that Keymaster keeps for a Cluster API Cluster (owned by ` +
  `the Cluster of its name, in a namespace labelled ${ADOPT_LABEL}=${ADOPT_LABEL_VALUE}) carries CAPA's tags, ` +
  `and a hand-made AWSCluster cannot exempt keys from the tag layers: remove spec.clusterAPI, or label the ` +
  `namespace and let Keymaster keep the companion`;

/** What to do about a conflict CAPA holds (its claim the winner): the two controllers must not both set the key. */
export const CLUSTER_API_CONFLICT_FIX = 'CAPA writes the key and Keymaster leaves it: set it in one of them only';

/** When a layer counts as standing: long enough after its object was created (default 10 minutes). */
export const DEFAULT_LAYER_GRACE_PERIOD_MS = 10 * 60_000;

/**
 * The layers that still stand, so that the Delete policy may remove keys Keymaster wrote from them
 * and that they dropped. The cluster's own layer always stands. The global layer stands while the
 * AWSTagPolicy exists, is not being deleted, has `resourceTags` (an explicit empty list counts: that
 * is how the platform asks for its keys to go) and is older than the grace period; the selected layer
 * while one policy that selects the cluster does, the account layer while one identity of the chain
 * does. So deleting a policy, clearing an identity's resourceTags, deleting and re-creating either
 * within the grace period, or a cluster no longer selected by any policy removes nothing.
 */
export function standingLayers(
  { policy, selected = [], identities }: Omit<LayerObjects, 'cluster'>,
  options: { now: Date; gracePeriodMs?: number },
): LayerName[] {
  const grace = options.gracePeriodMs ?? DEFAULT_LAYER_GRACE_PERIOD_MS;
  const stands = (object: { metadata: ObjectMeta; spec?: { resourceTags?: readonly ResourceTag[] } }) => {
    const created = Date.parse(object.metadata.creationTimestamp ?? '');
    return (
      object.metadata.deletionTimestamp === undefined &&
      object.spec?.resourceTags !== undefined &&
      Number.isFinite(created) &&
      options.now.getTime() - created >= grace
    );
  };
  return [
    ...(policy && stands(policy) ? (['Global'] as const) : []),
    ...(selected.some(stands) ? (['Selected'] as const) : []),
    ...(identities.some(stands) ? (['Account'] as const) : []),
    'Cluster',
  ];
}
