/**
 * The condition types Keymaster sets and the reasons of each, beside it. Reasons are CamelCase and
 * stable: users `kubectl wait` on them and alerts match them. A reason may serve several types (a
 * failure is told where it shows); `ConditionReason` is every one, so that a misspelt reason does not
 * compile. docs/reconciler.md and docs/credentials.md list them; a test holds the lists to these.
 */

/** Why a resolve of credentials failed: the reasons identity errors carry, shown by the identity conditions. */
export const CredentialFailureReason = {
  /** An identity of the chain does not exist. */
  IdentityNotFound: 'IdentityNotFound',
  /** A link refuses the namespace (it is the object's own identity). */
  PrincipalUsageUnauthorized: 'PrincipalUsageUnauthorized',
  /** A source deeper in the chain refuses the namespace. */
  SourcePrincipalUsageUnauthorized: 'SourcePrincipalUsageUnauthorized',
  /** A link is being deleted and the object did not use it before. */
  IdentityDeleting: 'IdentityDeleting',
  /** A static identity's Secret, or a role's externalIDSecretRef, is missing. */
  SecretNotFound: 'SecretNotFound',
  /** Such a Secret lacks its keys. */
  SecretInvalid: 'SecretInvalid',
  /** A cycle, a chain of more than 5, or an identity breaking its schema. */
  IdentityChainInvalid: 'IdentityChainInvalid',
  /** STS refused AssumeRole. */
  AssumeRoleFailed: 'AssumeRoleFailed',
  /** STS refused AssumeRoleWithWebIdentity. */
  AssumeRoleWithWebIdentityFailed: 'AssumeRoleWithWebIdentityFailed',
  /** AWS answered and refused the keys. */
  CredentialsRejected: 'CredentialsRejected',
  /** No answer from STS (DNS, connection, TLS, time-out). */
  AWSUnreachable: 'AWSUnreachable',
  /** The controller's own credentials could not be loaded. */
  ControllerCredentialsUnavailable: 'ControllerCredentialsUnavailable',
  /** A web identity's ServiceAccount token could not be made. */
  ServiceAccountTokenFailed: 'ServiceAccountTokenFailed',
  /** A request's identity gives keys no session policy narrows: writing them out would be passthrough. */
  PassthroughRefused: 'PassthroughRefused',
  /** A request's policies could widen what its identity's own session policies allow. */
  SessionPolicyWouldBroaden: 'SessionPolicyWouldBroaden',
  /** The identity vends to no namespace. */
  VendingNotEnabled: 'VendingNotEnabled',
  /** The identity vends, but not to this namespace. */
  VendingNamespaceNotAllowed: 'VendingNamespaceNotAllowed',
  /** A source of the chain does not vend. */
  SourceIdentityNotVendable: 'SourceIdentityNotVendable',
  /** A web identity's token of the controller's namespace is not vended. */
  ControllerNamespaceTokenNotVendable: 'ControllerNamespaceTokenNotVendable',
  /** Anything else. */
  CredentialRetrievalFailed: 'CredentialRetrievalFailed',
} as const;
export type CredentialFailureReason = (typeof CredentialFailureReason)[keyof typeof CredentialFailureReason];

/** Not checked, because something checked before it refused. */
const NOT_ATTEMPTED = 'NotAttempted';

/** PrincipalUsageAllowed: whether every identity of the chain allows the object's namespace. */
export const PrincipalUsageAllowedReason = {
  /** True: every link allows it. */
  PrincipalUsageAllowed: 'PrincipalUsageAllowed',
  /** True (a link being deleted still serves its users) or False (it accepts no new ones). */
  IdentityDeleting: 'IdentityDeleting',
  /** False: a tenant's identity resolves into an account bound to no tenant. */
  AccountNotBound: 'AccountNotBound',
  /** False: into an account bound to other tenants only. */
  AccountOfAnotherTenant: 'AccountOfAnotherTenant',
  /** Unknown: a request's credential set cap refused it first. */
  NotAttempted: NOT_ATTEMPTED,
} as const;
export type PrincipalUsageAllowedReason =
  (typeof PrincipalUsageAllowedReason)[keyof typeof PrincipalUsageAllowedReason] | CredentialFailureReason;

/** PrincipalCredentialRetrieved: whether the chain's credentials were made. */
export const PrincipalCredentialRetrievedReason = {
  /** True: credentials resolved. */
  PrincipalCredentialRetrieved: 'PrincipalCredentialRetrieved',
  /** Unknown: the namespace may not use the chain, so no credentials were asked for. */
  NotAttempted: NOT_ATTEMPTED,
  /** False: a request the controller cannot serve as written. */
  InvalidRequest: 'InvalidRequest',
  /** False: the namespace's requests ask for more credential sets than its cap. */
  CredentialSetCapExceeded: 'CredentialSetCapExceeded',
  /** False: a request's spec is larger than any valid one. */
  SpecTooLarge: 'SpecTooLarge',
} as const;
export type PrincipalCredentialRetrievedReason =
  | (typeof PrincipalCredentialRetrievedReason)[keyof typeof PrincipalCredentialRetrievedReason]
  | CredentialFailureReason;

/** TagsInSync: whether every owned resource carries the effective tags. */
export const TagsInSyncReason = {
  /** True: verified. */
  TagsInSync: 'TagsInSync',
  /** False: drift was found and is not corrected yet. */
  TagDrift: 'TagDrift',
  /** False: a resource would hold more than 50 user tags. */
  TagLimitExceeded: 'TagLimitExceeded',
  /** False: AWS refused some writes. */
  TaggingFailed: 'TaggingFailed',
  /** False: the cluster's identity may not tag. */
  AccessDenied: 'AccessDenied',
  /** False: spec.tagging.paused. */
  TaggingPaused: 'TaggingPaused',
  /** spec.tagging.dryRun: False with changes pending, True with none. */
  DryRun: 'DryRun',
  /** False: another AWSCluster owns the clusterName in this account. */
  ClusterNameClaimed: 'ClusterNameClaimed',
  /** Unknown: tags are not checked without credentials. */
  CredentialsUnavailable: 'CredentialsUnavailable',
  /** Unknown: an older cluster of the same name is not checked yet. */
  WaitingForClusterNameClaim: 'WaitingForClusterNameClaim',
  /** Unknown: nothing is tagged in an account bound to no tenant. */
  AccountNotBound: 'AccountNotBound',
  /** Unknown: nothing is tagged in an account bound to other tenants only. */
  AccountOfAnotherTenant: 'AccountOfAnotherTenant',
} as const;
export type TagsInSyncReason = (typeof TagsInSyncReason)[keyof typeof TagsInSyncReason];

/** ClusterNameUnique: whether no other AWSCluster uses the clusterName in the account. */
export const ClusterNameUniqueReason = {
  /** True. */
  ClusterNameUnique: 'ClusterNameUnique',
  /** False: others do; this cluster owns the name. */
  DuplicateClusterName: 'DuplicateClusterName',
  /** False: another cluster owns the name. */
  ClusterNameClaimed: 'ClusterNameClaimed',
  /** Unknown: an older cluster of the same name is not checked yet. */
  WaitingForClusterNameClaim: 'WaitingForClusterNameClaim',
} as const;
export type ClusterNameUniqueReason = (typeof ClusterNameUniqueReason)[keyof typeof ClusterNameUniqueReason];

/** SecretWritten (AWSCredentialsRequest): whether its Secret holds what the request asks for. */
export const SecretWrittenReason = {
  /** True. */
  SecretWritten: 'SecretWritten',
  /** False: the credentials were taken out of the Secret. */
  CredentialsRevoked: 'CredentialsRevoked',
  /** False: the last renewal failed; the Secret keeps credentials still valid. */
  NotRenewed: 'NotRenewed',
  /** False: a Secret of that name exists and is not the request's. */
  SecretNotOwned: 'SecretNotOwned',
  /** False: the controller may not write Secrets in the namespace. */
  SecretAccessNotGranted: 'SecretAccessNotGranted',
} as const;
export type SecretWrittenReason = (typeof SecretWrittenReason)[keyof typeof SecretWrittenReason];

/** CredentialsAvailable (AWSClusterControllerIdentity/default): whether the controller's own credentials were found at start. */
export const CredentialsAvailableReason = {
  /** True. */
  CredentialsFound: 'CredentialsFound',
  /** False. */
  NoCredentials: 'NoCredentials',
} as const;
export type CredentialsAvailableReason = (typeof CredentialsAvailableReason)[keyof typeof CredentialsAvailableReason];

/** ExternalIDConfidential (AWSClusterRoleIdentity): whether the externalID it sends is out of tenants' reach. */
export const ExternalIDConfidentialReason = {
  /** True: read from a Secret of the controller's namespace. */
  ExternalIDInSecret: 'ExternalIDInSecret',
  /** True: none is sent. */
  NoExternalID: 'NoExternalID',
  /** False: in the spec, which tenants read. */
  ExternalIDInSpec: 'ExternalIDInSpec',
} as const;
export type ExternalIDConfidentialReason =
  (typeof ExternalIDConfidentialReason)[keyof typeof ExternalIDConfidentialReason];

/** Ready sums up its inputs: its own reasons, else the reason of the first input that is not True. */
export const ReadyReason = {
  /** True: every input is True. */
  Ready: 'Ready',
  /** Unknown: an input is not known yet. */
  Reconciling: 'Reconciling',
  /** False: the object is past its namespace's bound (--max-...-per-namespace) and parked. */
  NamespaceLimitReached: 'NamespaceLimitReached',
} as const;
export type ReadyReason =
  | (typeof ReadyReason)[keyof typeof ReadyReason]
  | PrincipalUsageAllowedReason
  | PrincipalCredentialRetrievedReason
  | TagsInSyncReason
  | SecretWrittenReason;

/** Each condition type with the reasons it may carry. */
export interface ConditionReasons {
  PrincipalUsageAllowed: PrincipalUsageAllowedReason;
  PrincipalCredentialRetrieved: PrincipalCredentialRetrievedReason;
  TagsInSync: TagsInSyncReason;
  ClusterNameUnique: ClusterNameUniqueReason;
  SecretWritten: SecretWrittenReason;
  CredentialsAvailable: CredentialsAvailableReason;
  ExternalIDConfidential: ExternalIDConfidentialReason;
  Ready: ReadyReason;
}
export type ConditionType = keyof ConditionReasons;
export type ConditionReason = ConditionReasons[ConditionType];

/** Every condition type's own reasons, by type (what the docs are checked against). */
export const CONDITION_REASONS: { readonly [T in ConditionType]: Readonly<Record<string, ConditionReasons[T]>> } = {
  PrincipalUsageAllowed: { ...PrincipalUsageAllowedReason, ...CredentialFailureReason },
  PrincipalCredentialRetrieved: { ...PrincipalCredentialRetrievedReason, ...CredentialFailureReason },
  TagsInSync: TagsInSyncReason,
  ClusterNameUnique: ClusterNameUniqueReason,
  SecretWritten: SecretWrittenReason,
  CredentialsAvailable: CredentialsAvailableReason,
  ExternalIDConfidential: ExternalIDConfidentialReason,
  Ready: ReadyReason,
};

/**
 * A condition as a reconcile decides it, of type `T` (any type by default); the times and generation
 * are filled in when it is set.
 */
export type ConditionUpdate<T extends ConditionType = ConditionType> = {
  [K in T]: {
    type: K;
    status: 'True' | 'False' | 'Unknown';
    reason: ConditionReasons[K];
    message: string;
  };
}[T];
