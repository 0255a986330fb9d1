import { ClusterNameUniqueReason, PAUSED_ANNOTATION, type AWSCluster, type ConditionUpdate } from '@keymaster/api';
import { legacyClaimOf, type ClaimCheck } from '@keymaster/tagging';
import type { LedgerClaimRef } from '../kube/ledger-claims.js';
import type { Claimant, ClusterNames } from './cluster-names.js';
import type { ClusterLedger } from './cluster-ledger.js';
import { objectKey } from '../runtime/object-key.js';

export const clusterNameOf = (cluster: AWSCluster): string => cluster.spec.clusterName ?? cluster.metadata.name ?? '';

export const regionsOf = (cluster: AWSCluster): string[] => [
  ...new Set([cluster.spec.region, ...(cluster.spec.tagging?.extraRegions ?? [])]),
];

const keyOf = (cluster: AWSCluster) => objectKey(cluster.metadata);

/** The claim's order: the older cluster first (creationTimestamp, then UID), as every replica sees it. */
function oldest(clusters: readonly AWSCluster[]): AWSCluster {
  const age = (cluster: AWSCluster) => `${cluster.metadata.creationTimestamp ?? ''}\0${cluster.metadata.uid ?? ''}`;
  return clusters.reduce((first, cluster) => (age(cluster) < age(first) ? cluster : first));
}

/**
 * How the cluster stands on its name before any AWS call: another cluster's ledger claims it
 * (refused), wait for an older one, or the check the tag work makes once discovery has run.
 */
export type NameClaim =
  | { wait: ConditionUpdate<'ClusterNameUnique'> }
  | { refused: string }
  | { check: (ledger: ClusterLedger) => ClaimCheck; rivals: number };

/** What the claim is decided from. */
export interface NameClaimContext {
  names: ClusterNames;
  /** The cached AWSClusters of the cluster's clusterName. */
  clusters: readonly AWSCluster[];
  /** The ledgers that claim a cluster name in an account and region (the informer's index). */
  claiming: (accountId: string, region: string, clusterName: string) => LedgerClaimRef[];
  /** The cluster's own ledger, as it is now (the tag work reads it again when it runs). */
  ledger: ClusterLedger;
  /** Whether a cluster may have been tagged by a release up to 0.2.0 (created before the ledger CRD). */
  legacyEligible: (cluster: AWSCluster) => boolean;
}

/**
 * Who owns (account, region, clusterName), from what no tenant and no AWS principal can write: the
 * AWSCluster whose ledger claims it (the earliest claim, then the cluster's UID, should two), as long
 * as that cluster lives. Where no ledger claims it, the oldest of the rivals, waiting while an older
 * cluster of the name is not checked by this process yet (so that a restart never hands the name to a
 * younger one), records its claim in its ledger before its first AWS write. While a cluster's legacy
 * tags are converted, the legacy claim on its resources decides instead, as releases up to 0.2.0 did.
 * Nothing here names another cluster: the messages reach the tenant that owns this one.
 */
export function nameClaim(cluster: AWSCluster, claimant: Claimant, context: NameClaimContext): NameClaim {
  const { names, clusters } = context;
  const where = `clusterName "${claimant.clusterName}" in account ${claimant.accountId} (${claimant.regions.join(', ')})`;
  const refusal = `Another AWSCluster owns ${where}: this cluster makes no AWS write while it does`;
  const sameName = clusters.filter(
    (other) => clusterNameOf(other) === claimant.clusterName && keyOf(other) !== claimant.key,
  );
  /** Whether a living cluster's ledger other than this one's holds the earliest claim in one of the regions. */
  const claimedByAnother = () =>
    claimant.regions.some((region) => {
      const live = context
        .claiming(claimant.accountId, region, claimant.clusterName)
        .filter(
          ({ key, owner }) =>
            owner !== undefined &&
            (key === claimant.key ? cluster : sameName.find((other) => keyOf(other) === key))?.metadata.uid === owner,
        );
      const first = live.reduce<LedgerClaimRef | undefined>(
        (earliest, claim) =>
          earliest === undefined || `${claim.since}\0${claim.owner}` < `${earliest.since}\0${earliest.owner}`
            ? claim
            : earliest,
        undefined,
      );
      return first !== undefined && first.key !== claimant.key;
    });
  if (claimedByAnother()) return { refused: refusal };

  const rivalKeys = new Set(names.rivals(claimant).map(({ key }) => key));
  const rivals = sameName.filter((other) => rivalKeys.has(keyOf(other)));
  const owns = (ledger: ClusterLedger) => ledger.claimsAll(claimant.accountId, claimant.regions, claimant.clusterName);
  if (!owns(context.ledger)) {
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
          reason: ClusterNameUniqueReason.WaitingForClusterNameClaim,
          message: `An older AWSCluster with clusterName "${claimant.clusterName}" is not checked yet; this cluster tags nothing until it is`,
        },
      };
    }
  }
  return {
    rivals: rivals.length,
    check: (ledger) => ({
      decide: async (legacyClaims) => {
        if (claimedByAnother()) return { owner: false, message: refusal };
        if (owns(ledger)) return { owner: true };
        // The legacy claim of a cluster older than the ledger CRD: what releases up to 0.2.0 decided by.
        const holders = [cluster, ...sameName].filter(
          (candidate) =>
            context.legacyEligible(candidate) &&
            legacyClaims.has(legacyClaimOf(candidate.metadata.namespace ?? '', candidate.metadata.name ?? '')),
        );
        if (oldest(holders.length > 0 ? holders : [cluster, ...rivals]) !== cluster)
          return { owner: false, message: refusal };
        await ledger.claim(claimant.accountId, claimant.regions, claimant.clusterName);
        return { owner: true };
      },
    }),
  };
}

/** ClusterNameUnique once the claim is known. */
export function nameCondition(
  claimant: Claimant,
  rivals: number,
  claimRefused: boolean,
): ConditionUpdate<'ClusterNameUnique'> {
  const name = `clusterName "${claimant.clusterName}" in account ${claimant.accountId}`;
  if (claimRefused)
    return {
      type: 'ClusterNameUnique',
      status: 'False',
      reason: ClusterNameUniqueReason.ClusterNameClaimed,
      message: `Another AWSCluster owns ${name}: its resources' ownership tags are its. Give this cluster a spec.clusterName of its own (a new cluster), or use another account.`,
    };
  if (rivals === 0)
    return {
      type: 'ClusterNameUnique',
      status: 'True',
      reason: ClusterNameUniqueReason.ClusterNameUnique,
      message: `No other AWSCluster uses ${name}`,
    };
  return {
    type: 'ClusterNameUnique',
    status: 'False',
    reason: ClusterNameUniqueReason.DuplicateClusterName,
    message: `${rivals} other AWSCluster(s) use ${name}; this cluster owns the name and they make no AWS write`,
  };
}
