import { ADOPT_LABEL, ADOPT_LABEL_VALUE, type AWSCluster, type AWSTagPolicy } from '@keymaster/api';
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

/** Cluster API's core group, whose Cluster owns a companion AWSCluster. */
const CLUSTER_API_CORE_GROUP = 'cluster.x-k8s.io';

/**
 * Whether the AWSCluster is a companion Keymaster keeps for a Cluster API Cluster, so that its
 * spec.clusterAPI.additionalTags are CAPA's: it is owned by the Cluster of its own name (owner
 * references never leave the namespace) and its namespace carries the adopt label, which ops write
 * and tenants cannot. Anything else with a spec.clusterAPI is hand-made: its ClusterAPI layer is
 * ignored and reported, as a tenant could write it to exempt keys from the platform's layers.
 */
export function isClusterAPICompanion(cluster: AWSCluster, namespaceLabels: Readonly<Record<string, string>>): boolean {
  if (namespaceLabels[ADOPT_LABEL] !== ADOPT_LABEL_VALUE) return false;
  const name = cluster.metadata.name;
  const ownedByItsCluster = (cluster.metadata.ownerReferences ?? []).some(
    (owner) =>
      owner.kind === 'Cluster' && owner.apiVersion.split('/')[0] === CLUSTER_API_CORE_GROUP && owner.name === name,
  );
  return ownedByItsCluster && cluster.spec.clusterAPI?.clusterRef.name === name;
}

/** The layer inputs of a cluster out of every AWSTagPolicy and its namespace's labels. */
export function clusterLayerInputs(
  policies: readonly AWSTagPolicy[],
  cluster: AWSCluster,
  namespaceLabels: Readonly<Record<string, string>>,
): ClusterLayerInputs {
  return {
    ...tagPoliciesOf(policies, cluster, namespaceLabels),
    clusterAPICompanion: isClusterAPICompanion(cluster, namespaceLabels),
  };
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
