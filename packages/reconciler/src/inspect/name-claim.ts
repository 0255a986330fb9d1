import { PAUSED_ANNOTATION, type AWSCluster, type AWSClusterLedger } from '@keymaster/api';
import { CONTROLLER_IDENTITY, type IdentitySession } from '@keymaster/identity';
import { ClusterNameClaimedError, type ClaimCheck } from '@keymaster/tagging';
import { ClusterLedger } from '../awscluster/cluster-ledger.js';
import { ClusterNames } from '../awscluster/cluster-names.js';
import { clusterNameOf, nameClaim, regionsOf } from '../awscluster/name-claim.js';
import { clusterUser } from '../awsclusteridentity/deletions.js';
import { createdBefore } from '../kube/ledger-epoch.js';
import { LedgerClaims } from '../kube/ledger-claims.js';
import type { InspectContext } from './context.js';
import { clusterKeyOf } from './targets.js';

/**
 * The cluster's ledger as `keymaster plan` reads it: what the controller remembers, and a claim the
 * controller would record is only said, never written.
 */
function readOnlyLedger(
  cluster: AWSCluster,
  ledgers: readonly AWSClusterLedger[],
  epoch: Date | undefined,
): ClusterLedger {
  const store = {
    get: (namespace: string, name: string) =>
      ledgers.find(({ metadata }) => metadata.namespace === namespace && metadata.name === name),
    write: (ledger: AWSClusterLedger) => Promise.resolve(ledger),
  };
  return new ClusterLedger(cluster, {
    store,
    now: () => new Date(),
    legacyEligible: createdBefore(cluster, epoch),
    onFull: () => undefined,
  });
}

/**
 * Who owns a cluster's name, decided as the controller decides it (`nameClaim`, from the ledgers),
 * once this command has done what a freshly started controller does: resolved the identity of every
 * other AWSCluster of that clusterName (deleted and paused ones aside, which the controller does not
 * reconcile), to learn which of them act in the same account. A cluster that does not own its name then
 * gets no plan (`ClusterNameClaimedError`): nothing of the owner's resources is shown.
 */
export async function claimCheckFor(
  context: InspectContext,
  cluster: AWSCluster,
  session: IdentitySession,
): Promise<{ claim: ClaimCheck; ledger: ClusterLedger }> {
  const clusters = await context.allClusters();
  const ledgers = await context.allLedgers();
  const epoch = await context.ledgerEpoch();
  const clusterName = clusterNameOf(cluster);
  const names = new ClusterNames();
  for (const other of clusters) {
    const key = clusterKeyOf(other);
    if (clusterNameOf(other) !== clusterName || key === clusterKeyOf(cluster)) continue;
    if (other.metadata.deletionTimestamp || other.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined) continue;
    try {
      const theirs = await context.resolver.resolve({
        namespace: other.metadata.namespace ?? '',
        identityRef: other.spec.identityRef ?? CONTROLLER_IDENTITY,
        region: other.spec.region,
        cluster: clusterUser(other),
      });
      names.record({ key, clusterName, accountId: theirs.accountId, regions: regionsOf(other) });
    } catch {
      // A refused cluster makes no AWS call, so it claims nothing: the controller records it so too.
      names.refuse(key, clusterName);
    }
  }
  const claimant = {
    key: clusterKeyOf(cluster),
    clusterName,
    accountId: session.accountId,
    regions: regionsOf(cluster),
  };
  names.record(claimant);
  const index = new LedgerClaims();
  for (const ledger of ledgers) index.set(ledger);
  const ledger = readOnlyLedger(cluster, ledgers, epoch);
  const claim = nameClaim(cluster, claimant, {
    names,
    clusters: clusters.filter((other) => clusterNameOf(other) === clusterName),
    claiming: (accountId, region, name) => index.claiming(accountId, region, name),
    ledger,
    legacyEligible: (other) => createdBefore(other, epoch),
  });
  if ('refused' in claim) throw new ClusterNameClaimedError(claim.refused);
  // Every other cluster of the name was checked above, so the claim never waits here.
  if ('wait' in claim) throw new Error(claim.wait.message);
  return { claim: claim.check(ledger), ledger };
}
