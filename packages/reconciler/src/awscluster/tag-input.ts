import type { AWSCluster } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import {
  resolveEffectiveTags,
  standingLayers,
  tagLayers,
  type ReconcileTagsInput,
  type TagPolicies,
} from '@keymaster/tagging';
import { clusterNameOf, regionsOf } from './name-claim.js';

/** A cluster's tag reconcile, but for who acts (session, claim, limiters) and whether it writes. */
export type ClusterTagInput = Omit<ReconcileTagsInput, 'session' | 'claim' | 'limiters' | 'dryRun'>;

/**
 * What tagging a cluster's resources takes from Kubernetes: the effective tags of its layers (the
 * global policy, the policies that select it, its identity chain, itself), the layers that still
 * stand, its names, regions and removal policy. The controller and `keymaster plan` both start here,
 * so that a plan is what the controller would do.
 */
export function clusterTagInput(
  cluster: AWSCluster,
  chain: readonly IdentityObject[],
  policies: TagPolicies,
  options: { now: Date; layerGracePeriodMs?: number | undefined },
): ClusterTagInput {
  const managedTags = cluster.status?.tagging?.managedTags;
  const removalPolicy = cluster.spec.tagging?.removalPolicy;
  return {
    clusterName: clusterNameOf(cluster),
    regions: regionsOf(cluster),
    effective: resolveEffectiveTags(tagLayers({ ...policies, identities: chain, cluster })),
    ...(managedTags ? { managedTags } : {}),
    ...(removalPolicy ? { removalPolicy } : {}),
    standingLayers: standingLayers(
      { ...policies, identities: chain },
      {
        now: options.now,
        ...(options.layerGracePeriodMs === undefined ? {} : { gracePeriodMs: options.layerGracePeriodMs }),
      },
    ),
  };
}
