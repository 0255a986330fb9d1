export {
  IdentityResolver,
  type IdentityResolverOptions,
  type IdentitySession,
  type NarrowedRequest,
  type NarrowedSession,
  type Requester,
  type ResolveRequest,
  type ResolverObserver,
} from './resolver.js';
export { checkNarrowing, roleChained, SessionPolicyWouldBroadenError } from './narrowing.js';
export { credentialVendingOf, identitiesSourcedFrom, vendingProblems } from './vending.js';
export {
  ControllerNamespaceTokenNotVendableError,
  PassthroughRefusedError,
  SourceIdentityNotVendableError,
  VendingNamespaceNotAllowedError,
  VendingNotEnabledError,
  VendingRefusedError,
} from './vending-errors.js';
export { kubeIdentityStore, type IdentityStore, type IdentityObject, type SecretData } from './store.js';
export { identityAllows, namespaceAllowed, selectorMatches, type NamespaceInfo } from './namespaces.js';
export { groupOf, identityId, isNamespacedKind, refGroup } from './identity-id.js';
export {
  CAPA_API_VERSION,
  CAPA_VERSION,
  DEFAULT_CAPA_OPTIONS,
  CapaIdentitiesNotReadError,
  capaIdentity,
  isCapaIdentity,
  type CapaNotRead,
  type CapaOptions,
} from './capa.js';
export {
  CONTROLLER_IDENTITY,
  MAX_CHAIN_LINKS,
  chainDependencies,
  chainReach,
  checkChain,
  type ChainReach,
  type ChainRequest,
  type LinkCheck,
} from './chain.js';
export { servesCluster, type ClusterUser, type UsersAtDeletion } from './deletion.js';
export { refreshWindowMs, renewalTime, type Clock, type SelfRefreshingProvider } from './refreshing-credentials.js';
export { StsRateLimitedError, type StsRate } from './sts-budget.js';
export type { NamespaceSets } from './credential-sets.js';
export { DEFAULT_DURATION_SECONDS } from './providers/role.js';
export { PROVIDERS, providerOf } from './providers/index.js';
export { ServiceAccountTokenError } from './providers/token-role.js';
export { kubeServiceAccountTokens } from './service-account-tokens.js';
export type {
  ChainLink,
  CredentialContext,
  CredentialSource,
  IdentityProvider,
  LoadContext,
  Observed,
  ServiceAccountTokens,
  Vending,
} from './providers/provider.js';
export { defaultSessionName } from './session-name.js';
export type { SdkClient, SdkClientClass } from './clients.js';
export { isNetworkFailure } from './aws-failures.js';
export {
  SOURCE_DESCRIPTIONS,
  checkControllerCredentials,
  credentialSource,
  defaultControllerCredentials,
  type ControllerCredentialSource,
  type ControllerCredentialsCheck,
} from './controller-credentials.js';
export {
  AwsCredentialError,
  AwsUnreachableError,
  type CredentialAction,
  ControllerCredentialsError,
  ChainTooDeepError,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityError,
  IdentityNotFoundError,
  InvalidIdentityError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
  linkName,
  type LinkName,
} from './errors.js';
