/**
 * The reasons of the Kubernetes Events Keymaster records, besides a failing condition's own reason
 * (conditions.ts). docs/operations.md's Events table lists each (a test checks it).
 */
export const EventReason = {
  // On an AWSCluster, from its tag work.
  /** Normal: tags were set or removed. */
  TagsApplied: 'TagsApplied',
  /** Normal: tags edited outside Keymaster were set back. */
  TagDriftCorrected: 'TagDriftCorrected',
  /** Normal: nothing carries the cluster's ownership tags. */
  NoResourcesFound: 'NoResourcesFound',
  /** Warning: a layer's value lost to another. */
  TagConflict: 'TagConflict',
  /** Warning: resources would carry more user tags than AWS allows. */
  TagLimitExceeded: 'TagLimitExceeded',
  /** Warning: AWS refused a tag write. */
  TaggingAccessDenied: 'TaggingAccessDenied',
  /** Warning: another tag write failure. */
  TaggingFailed: 'TaggingFailed',
  /** Warning: tags read back differ from those written. */
  TagsNotVerified: 'TagsNotVerified',
  /** Warning: a layer's tags were left out (invalid or reserved). */
  InvalidTags: 'InvalidTags',
  /** Warning: resources carry keymaster.dev/ keys Keymaster did not write. */
  BookkeepingTagIgnored: 'BookkeepingTagIgnored',
  /** Warning: the cluster's ledger is full; new removal memory was not recorded. */
  LedgerFull: 'LedgerFull',
  // On identities and their users.
  /** Warning, on an identity: deleted while clusters use it. */
  DeletionBlocked: 'DeletionBlocked',
  /** Normal, on an identity: an earlier build's claim of an AWS account became a binding. */
  AccountClaimConverted: 'AccountClaimConverted',
  /** Warning, on an AWSCluster: an identity of its chain is being deleted. */
  IdentityDeleting: 'IdentityDeleting',
  // On an AWSCredentialsRequest.
  /** Normal: its Secret was written. */
  CredentialsWritten: 'CredentialsWritten',
  /** Normal: its Secret's credentials were renewed. */
  CredentialsRenewed: 'CredentialsRenewed',
  /** Warning: its Secret was deleted by someone else and written again. */
  SecretRecreated: 'SecretRecreated',
  /** Warning: its Secret was edited by someone else and written back. */
  SecretRestored: 'SecretRestored',
  /** Warning: its credentials were taken out of its Secret. */
  CredentialsRevoked: 'CredentialsRevoked',
  // On a Cluster API Cluster (--adopt-cluster-api).
  /** Normal: a Keymaster AWSCluster of its name that Keymaster did not make governs it. */
  HandMadeAWSCluster: 'HandMadeAWSCluster',
  /** Warning: Keymaster's AWSCluster schema refused the companion CAPA's objects ask for. */
  CompanionRefused: 'CompanionRefused',
  /** Warning: CAPA's object names no region yet. */
  RegionMissing: 'RegionMissing',
} as const;

export type EventReason = (typeof EventReason)[keyof typeof EventReason];
