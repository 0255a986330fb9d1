import type { AWSCluster, AWSTagPolicy } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import {
  resolveEffectiveTags,
  standingLayers,
  tagLayers,
  tagPoliciesOf,
  type LayerObjects,
  type ReconcileTagsInput,
  type TagPolicies,
} from '@keymaster/tagging';
import { clusterNameOf, regionsOf } from './name-claim.js';

/** A cluster's tag reconcile, but for who acts (session, claim, limiters) and whether it writes. */
export type ClusterTagInput = Omit<ReconcileTagsInput, 'session' | 'claim' | 'limiters' | 'dryRun'>;

/** The layers of a cluster besides its own and its identity chain's: its tag policies, and whether its ClusterAPI layer is read. */
export type ClusterLayerInputs = TagPolicies & Required<Pick<LayerObjects, 'clusterAPICompanion'>>;

/**
 * The layer inputs of a cluster out of every AWSTagPolicy, its namespace's labels, and whether it is
 * the companion of a Cluster API Cluster (`adoptedFrom`): only then are its spec.clusterAPI tags CAPA's,
 * since a tenant may write that field on any AWSCluster of its namespace.
 */
export function clusterLayerInputs(
  policies: readonly AWSTagPolicy[],
  cluster: AWSCluster,
  namespaceLabels: Readonly<Record<string, string>>,
  companion: boolean,
): ClusterLayerInputs {
  return { ...tagPoliciesOf(policies, cluster, namespaceLabels), clusterAPICompanion: companion };
}

/**
 * What tagging a cluster's resources takes from Kubernetes: the effective tags of its layers (the
 * global policy, the policies that select it, its identity chain, itself, and CAPA's tags of a
 * companion), the layers that still stand, its names, regions and removal policy. The controller and `keymaster plan` both start here,
 * so that a plan is what the controller would do.
 */
export function clusterTagInput(
  cluster: AWSCluster,
  chain: readonly IdentityObject[],
  layers: ClusterLayerInputs,
  options: { now: Date; layerGracePeriodMs?: number | undefined },
): ClusterTagInput {
  const managedTags = cluster.status?.tagging?.managedTags;
  const removalPolicy = cluster.spec.tagging?.removalPolicy;
  return {
    clusterName: clusterNameOf(cluster),
    regions: regionsOf(cluster),
    effective: resolveEffectiveTags(tagLayers({ ...layers, identities: chain, cluster })),
    ...(managedTags ? { managedTags } : {}),
    ...(removalPolicy ? { removalPolicy } : {}),
    standingLayers: standingLayers(
      { ...layers, identities: chain },
      {
        now: options.now,
        ...(options.layerGracePeriodMs === undefined ? {} : { gracePeriodMs: options.layerGracePeriodMs }),
      },
    ),
  };
}
