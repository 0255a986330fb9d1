import type {
  AWSCluster,
  AWSClusterControllerIdentity,
  AWSClusterRoleIdentity,
  AWSClusterStaticIdentity,
  AWSTagPolicy,
  ObjectMeta,
  ResourceTag,
} from '@keymaster/api';
import type { LayerName } from './problems.js';

export type AWSIdentity = AWSClusterControllerIdentity | AWSClusterStaticIdentity | AWSClusterRoleIdentity;

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
  /** The cluster's identity chain, the cluster's own identity first (the order of status.identityChain). */
  identities: readonly AWSIdentity[];
  cluster: AWSCluster;
}

/** How provenance names an object: `Kind/name`, and `AWSCluster namespace/name` for clusters. */
export function describeObject(object: { kind: string; metadata: ObjectMeta }): string {
  const name = object.metadata.name ?? '';
  return object.kind === 'AWSCluster'
    ? `AWSCluster ${object.metadata.namespace ?? ''}/${name}`
    : `${object.kind}/${name}`;
}

/**
 * The layers of a cluster in authority order: the global policy, then the identity chain from the
 * link farthest from the cluster to its own identity, then the cluster. A later layer overrides an
 * earlier one unless the earlier tag says `overridePolicy: Deny`.
 */
export function tagLayers({ policy, identities, cluster }: LayerObjects): TagLayer[] {
  const layers: TagLayer[] = [];
  if (policy) layers.push({ layer: 'Global', object: describeObject(policy), tags: policy.spec.resourceTags ?? [] });
  for (const identity of [...identities].reverse()) {
    layers.push({ layer: 'Account', object: describeObject(identity), tags: identity.spec.resourceTags ?? [] });
  }
  const additionalTags = Object.entries(cluster.spec.additionalTags ?? {}).map(([key, value]) => ({ key, value }));
  layers.push({ layer: 'Cluster', object: describeObject(cluster), tags: additionalTags });
  return layers;
}
