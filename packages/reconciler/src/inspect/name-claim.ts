import { PAUSED_ANNOTATION, type AWSCluster } from '@keymaster/api';
import { CONTROLLER_IDENTITY, type IdentitySession } from '@keymaster/identity';
import type { ClaimCheck } from '@keymaster/tagging';
import { ClusterNames } from '../awscluster/cluster-names.js';
import { clusterNameOf, nameClaim, regionsOf } from '../awscluster/name-claim.js';
import { clusterUser } from '../identity/deletions.js';
import type { InspectContext } from './context.js';
import { clusterKeyOf } from './targets.js';

/**
 * Who owns a cluster's name, decided as the controller decides it (`nameClaim`), once this command
 * has done what a freshly started controller does: resolved the identity of every other AWSCluster
 * of that clusterName (deleted and paused ones aside, which the controller does not reconcile), to
 * learn which of them act in the same account. A cluster that does not own its name then gets no
 * plan: discovery's reads only, and nothing of the owner's resources is shown.
 */
export async function claimCheckFor(
  context: InspectContext,
  cluster: AWSCluster,
  session: IdentitySession,
): Promise<ClaimCheck> {
  const clusters = await context.allClusters();
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
  const claim = nameClaim(cluster, claimant, names, clusters);
  // Every other cluster of the name was checked above, so the claim never waits here.
  if ('wait' in claim) throw new Error(claim.wait.message);
  return claim.check;
}
