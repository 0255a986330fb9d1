import {
  AwsCredentialError,
  AwsUnreachableError,
  ControllerCredentialsError,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityNotFoundError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
  ServiceAccountTokenError,
  type LinkName,
} from '@keymaster/identity';

/** A resolve that fails, and the identity conditions it makes on the object that asked. */
export interface IdentityFailure {
  title: string;
  error: Error;
  /** PrincipalUsageAllowed's reason. */
  allowed: string;
  /** PrincipalCredentialRetrieved's reason. */
  retrieved: string;
  /** Ready's: the first of the two that is False. */
  ready: string;
  /** Retried with backoff. */
  transient: boolean;
}

const SOURCE: LinkName = { kind: 'AWSClusterRoleIdentity', name: 'platform' };
const secretUse = { field: 'spec.externalIDSecretRef', holds: 'the key externalID' };

/** Every way a resolve for `namespace` through `link` fails, each with a reason of its own. */
export const identityFailures = (link: LinkName, namespace: string): IdentityFailure[] => [
  {
    title: 'an identity that does not exist',
    error: new IdentityNotFoundError(link, `an object of ${namespace}`),
    allowed: 'IdentityNotFound',
    retrieved: 'IdentityNotFound',
    ready: 'IdentityNotFound',
    transient: false,
  },
  {
    title: 'the own identity refuses the namespace',
    error: new NamespaceNotAllowedError(link, namespace, 0),
    allowed: 'PrincipalUsageUnauthorized',
    retrieved: 'NotAttempted',
    ready: 'PrincipalUsageUnauthorized',
    transient: false,
  },
  {
    title: 'a source of the chain refuses the namespace',
    error: new NamespaceNotAllowedError(SOURCE, namespace, 1),
    allowed: 'SourcePrincipalUsageUnauthorized',
    retrieved: 'NotAttempted',
    ready: 'SourcePrincipalUsageUnauthorized',
    transient: false,
  },
  {
    title: 'an identity being deleted accepts no newcomer',
    error: new IdentityDeletingError(link, namespace, 0),
    allowed: 'IdentityDeleting',
    retrieved: 'NotAttempted',
    ready: 'IdentityDeleting',
    transient: false,
  },
  {
    title: "an identity's Secret is missing",
    error: new SecretNotFoundError(link, 'external-id', secretUse),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'SecretNotFound',
    ready: 'SecretNotFound',
    transient: false,
  },
  {
    title: "an identity's Secret lacks a key",
    error: new SecretInvalidError(link, 'external-id', secretUse, ['externalID is missing']),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'SecretInvalid',
    ready: 'SecretInvalid',
    transient: false,
  },
  {
    title: 'a chain with a cycle',
    error: new IdentityCycleError([link, SOURCE, link]),
    allowed: 'IdentityChainInvalid',
    retrieved: 'IdentityChainInvalid',
    ready: 'IdentityChainInvalid',
    transient: false,
  },
  {
    title: 'STS refuses the AssumeRole',
    error: new AwsCredentialError(link, 'sts:AssumeRole', 'AccessDenied', 'not authorized', 'fix the trust policy'),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'AssumeRoleFailed',
    ready: 'AssumeRoleFailed',
    transient: true,
  },
  {
    title: 'STS refuses the AssumeRoleWithWebIdentity',
    error: new AwsCredentialError(
      link,
      'sts:AssumeRoleWithWebIdentity',
      'AccessDenied',
      'not trusted',
      'fix the trust',
    ),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'AssumeRoleWithWebIdentityFailed',
    ready: 'AssumeRoleWithWebIdentityFailed',
    transient: true,
  },
  {
    title: 'AWS rejects the keys',
    error: new AwsCredentialError(link, 'sts:GetCallerIdentity', 'InvalidClientTokenId', 'bad keys', 'rotate them'),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'CredentialsRejected',
    ready: 'CredentialsRejected',
    transient: true,
  },
  {
    title: 'AWS cannot be reached',
    error: new AwsUnreachableError(link, 'sts:AssumeRole', 'sts.amazonaws.com', 'ECONNREFUSED'),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'AWSUnreachable',
    ready: 'AWSUnreachable',
    transient: true,
  },
  {
    title: "the controller's own credentials are missing",
    error: new ControllerCredentialsError('no source in the default chain'),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'ControllerCredentialsUnavailable',
    ready: 'ControllerCredentialsUnavailable',
    transient: true,
  },
  {
    title: "a web identity's ServiceAccount token cannot be had",
    error: new ServiceAccountTokenError(link, 'capa', 404, 'the API server answered 404'),
    allowed: 'PrincipalUsageAllowed',
    retrieved: 'ServiceAccountTokenFailed',
    ready: 'ServiceAccountTokenFailed',
    transient: false,
  },
  {
    title: 'a failure no provider names',
    error: new Error('socket hang up'),
    allowed: 'CredentialRetrievalFailed',
    retrieved: 'CredentialRetrievalFailed',
    ready: 'CredentialRetrievalFailed',
    transient: true,
  },
];
