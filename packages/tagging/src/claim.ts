/** Whether the cluster may tag the resources it found: it owns the cluster name, or why not. */
export type ClaimVerdict = { owner: true } | { owner: false; message: string };

/**
 * Asked once discovery has run, before any write: who owns the cluster name in the account. The
 * caller decides from what no AWS principal can write (the clusters' ledgers); `legacyClaims` are the
 * claim tags of releases up to 0.2.0 found on the cluster's resources, given only while the cluster's
 * legacy bookkeeping is converted (`ReconcileTagsInput.convertLegacy`), empty otherwise. An owner that
 * must record its claim does so before answering.
 */
export interface ClaimCheck {
  decide(legacyClaims: ReadonlySet<string>): Promise<ClaimVerdict>;
}
