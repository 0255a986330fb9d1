import type { AWSCluster, AWSTagPolicy, IdentityObject, ObjectMeta, ResourceTag } from '@keymaster/api';
import type { LayerName } from './problems.js';

/** Any identity kind's object: @keymaster/api's one union (`IdentityObject`), under tagging's name. */
export type AWSIdentity = IdentityObject;

/** The tags one object contributes, with the layer it belongs to. */
export interface TagLayer {
  layer: LayerName;
  /** The object, as provenance: `AWSTagPolicy/default`, `AWSClusterRoleIdentity/tenant-b`, `AWSCluster ns/name`. */
  object: string;
  tags: readonly ResourceTag[];
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
 */
export function tagLayers({ policy, selected = [], identities, cluster }: LayerObjects): TagLayer[] {
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
  return layers;
}

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
