import { createHash } from 'node:crypto';
import { ownershipOf } from './ownership.js';
import { entry } from './records.js';

/**
 * The tag that says which AWSCluster owns a cluster name's resources in an account. Its value is a
 * digest of the owner's `namespace/name`: it survives restarts and clusterctl move (which keep both),
 * tells other principals of the account nothing about the owner, and no Kubernetes write can change it.
 */
export const CLAIM_KEY = 'keymaster.dev/claim';

/** The claim tag value of the AWSCluster `namespace/name`. */
export const claimOf = (namespace: string, name: string): string =>
  createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 32);

/** Whether the cluster may tag the resources it found: it owns the claim, or why not. */
export type ClaimVerdict = { owner: true } | { owner: false; message: string };

/** Asked once discovery has run: who owns the cluster name, given the claims on its resources. */
export interface ClaimCheck {
  /** This cluster's claim value (`claimOf`), written on every resource it tags. */
  claim: string;
  /** The verdict, given the distinct claim values found on the cluster's owned resources. */
  decide(found: ReadonlySet<string>): ClaimVerdict;
}

/** The claim values on the resources that carry this cluster name's `owned` ownership tag. */
export function claimsFound(
  resources: Readonly<Record<string, Readonly<Record<string, string>>>>,
  clusterName: string,
): Set<string> {
  const found = new Set<string>();
  for (const tags of Object.values(resources)) {
    const claim = entry(tags, CLAIM_KEY);
    if (claim !== undefined && ownershipOf(tags, clusterName) !== 'None') found.add(claim);
  }
  return found;
}
