import { PAUSED_ANNOTATION, type AWSCluster } from '@keymaster/api';
import { claimOf, type ClaimCheck } from '@keymaster/tagging';
import type { Claimant, ClusterNames } from './cluster-names.js';
import type { ConditionUpdate } from './conditions.js';

export const clusterNameOf = (cluster: AWSCluster): string => cluster.spec.clusterName ?? cluster.metadata.name ?? '';

export const regionsOf = (cluster: AWSCluster): string[] => [
  ...new Set([cluster.spec.region, ...(cluster.spec.tagging?.extraRegions ?? [])]),
];

const keyOf = (cluster: AWSCluster) => `${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`;

/** The claim's order: the older cluster first (creationTimestamp, then UID), as every replica sees it. */
function oldest(clusters: readonly AWSCluster[]): AWSCluster {
  const age = (cluster: AWSCluster) => `${cluster.metadata.creationTimestamp ?? ''}\0${cluster.metadata.uid ?? ''}`;
  return clusters.reduce((first, cluster) => (age(cluster) < age(first) ? cluster : first));
}

/** How the cluster stands on its name before any AWS call: wait for an older one, or check the claim. */
export type NameClaim = { wait: ConditionUpdate } | { check: ClaimCheck; rivals: number };

/**
 * The claim on (account, regions, clusterName): the AWSCluster whose claim tag the resources carry
 * owns it (paused, or not checked since a restart, too), else the oldest of the rivals. A cluster waits while an older one of the same name has not
 * been checked by this process yet, so that a restart never hands the name to a younger cluster.
 * Nothing here names another cluster: the messages reach the tenant that owns this one.
 */
export function nameClaim(
  cluster: AWSCluster,
  claimant: Claimant,
  names: ClusterNames,
  clusters: readonly AWSCluster[],
): NameClaim {
  const sameName = clusters.filter(
    (other) => clusterNameOf(other) === claimant.clusterName && keyOf(other) !== claimant.key,
  );
  const unchecked = sameName.filter(
    (other) =>
      !names.checked(keyOf(other)) &&
      other.metadata.deletionTimestamp === undefined &&
      other.metadata.annotations?.[PAUSED_ANNOTATION] === undefined,
  );
  if (unchecked.some((other) => oldest([other, cluster]) === other)) {
    return {
      wait: {
        type: 'ClusterNameUnique',
        status: 'Unknown',
        reason: 'WaitingForClusterNameClaim',
        message: `An older AWSCluster with clusterName "${claimant.clusterName}" is not checked yet; this cluster tags nothing until it is`,
      },
    };
  }
  const rivalKeys = new Set(names.rivals(claimant).map(({ key }) => key));
  const rivals = sameName.filter((other) => rivalKeys.has(keyOf(other)));
  const where = `clusterName "${claimant.clusterName}" in account ${claimant.accountId} (${claimant.regions.join(', ')})`;
  return {
    rivals: rivals.length,
    check: {
      claim: claimOf(cluster.metadata.namespace ?? '', cluster.metadata.name ?? ''),
      decide: (found) => {
        // Any cluster of the name whose claim the resources carry holds it, paused or not checked yet:
        // its claim is on this account's resources, so it tagged them.
        const holders = [cluster, ...sameName].filter((candidate) =>
          found.has(claimOf(candidate.metadata.namespace ?? '', candidate.metadata.name ?? '')),
        );
        const owner = oldest(holders.length > 0 ? holders : [cluster, ...rivals]);
        if (owner === cluster) return { owner: true };
        return {
          owner: false,
          message: `Another AWSCluster owns ${where}: this cluster makes no AWS write while it does`,
        };
      },
    },
  };
}

/** ClusterNameUnique once the claim is known. */
export function nameCondition(claimant: Claimant, rivals: number, claimRefused: boolean): ConditionUpdate {
  const name = `clusterName "${claimant.clusterName}" in account ${claimant.accountId}`;
  if (claimRefused)
    return {
      type: 'ClusterNameUnique',
      status: 'False',
      reason: 'ClusterNameClaimed',
      message: `Another AWSCluster owns ${name}: its resources' ownership tags are its. Give this cluster a spec.clusterName of its own (a new cluster), or use another account.`,
    };
  if (rivals === 0)
    return {
      type: 'ClusterNameUnique',
      status: 'True',
      reason: 'ClusterNameUnique',
      message: `No other AWSCluster uses ${name}`,
    };
  return {
    type: 'ClusterNameUnique',
    status: 'False',
    reason: 'DuplicateClusterName',
    message: `${rivals} other AWSCluster(s) use ${name}; this cluster owns the name and they make no AWS write`,
  };
}
