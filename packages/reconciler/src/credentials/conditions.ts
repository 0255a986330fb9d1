import {
  InvalidCredentialsRequestError,
  type Condition,
  PrincipalCredentialRetrievedReason,
  PrincipalUsageAllowedReason,
  SecretWrittenReason,
  type ConditionUpdate,
} from '@keymaster/api';
import { VendingRefusedError } from '@keymaster/identity';
import { readyOf } from '../awscluster/conditions.js';
import { explain, IDENTITY_OK, identityVerdict, type IdentityVerdict } from '../awscluster/identity-conditions.js';
import { MAX_SPEC_BYTES } from './request-as-read.js';

/**
 * The identity conditions of a refused request. A request the controller cannot serve as written is
 * no AWS failure; an identity that does not vend to the namespace refuses its use, as allowedNamespaces does.
 */
export function refusalVerdict(error: unknown): IdentityVerdict {
  if (error instanceof VendingRefusedError)
    return {
      allowed: {
        type: 'PrincipalUsageAllowed',
        status: 'False',
        reason: error.reason,
        message: explain(error),
      },
      retrieved: {
        type: 'PrincipalCredentialRetrieved',
        status: 'Unknown',
        reason: PrincipalCredentialRetrievedReason.NotAttempted,
        message: "Not attempted: the identity's credentials are not vended to this namespace",
      },
      transient: false,
    };
  if (error instanceof InvalidCredentialsRequestError)
    return {
      allowed: IDENTITY_OK.allowed,
      retrieved: {
        type: 'PrincipalCredentialRetrieved',
        status: 'False',
        reason: PrincipalCredentialRetrievedReason.InvalidRequest,
        message: `${error.message}. ${error.hint ?? ''}`.trim(),
      },
      transient: false,
    };
  return identityVerdict(error);
}

/** The ClusterRole holding the Secret verbs requests need, bound per namespace (deploy/rbac). */
export const CREDENTIAL_VENDING_ROLE = 'keymaster-credential-vending';

/**
 * The identity conditions of a request whose credential set is beyond its namespace's cap: refused
 * before its chain is walked or STS is called.
 */
export function capRefusal(namespace: string, max: number): IdentityVerdict {
  const flag = `--max-credential-sets-per-namespace=${max}`;
  return {
    allowed: {
      type: 'PrincipalUsageAllowed',
      status: 'Unknown',
      reason: PrincipalUsageAllowedReason.NotAttempted,
      message: "Not checked: the namespace's credential set cap refused the request first",
    },
    retrieved: {
      type: 'PrincipalCredentialRetrieved',
      status: 'False',
      reason: PrincipalCredentialRetrievedReason.CredentialSetCapExceeded,
      message:
        // No count of the namespace's sets: it would be stale on every refused request once another comes or goes.
        `The requests of namespace ${namespace} ask for more distinct credential sets than the ${max} one namespace may have (${flag}): ` +
        'the sets of its oldest requests (by creationTimestamp, then name) are served, and this request needs another; no STS call was made. ' +
        `Ask exactly as an existing request of ${namespace} does (the same identityRef, statements, policyARNs and durationSeconds: requests that ask alike share one set), ` +
        'delete requests the namespace no longer needs, or ask the platform team to raise --max-credential-sets-per-namespace',
    },
    transient: false,
  };
}

/** A request whose spec is larger than any valid one: refused without reading it (the cache kept none of it). */
export const specTooLarge = (bytes: number): IdentityVerdict => ({
  allowed: IDENTITY_OK.allowed,
  retrieved: {
    type: 'PrincipalCredentialRetrieved',
    status: 'False',
    reason: PrincipalCredentialRetrievedReason.SpecTooLarge,
    message:
      `spec is ${bytes} bytes; no valid request is over ${MAX_SPEC_BYTES} (AWS takes a session policy of at most ` +
      '2,048 characters and 10 policy ARNs): keep to the statements the workload needs',
  },
  transient: false,
});

export const secretWritten = (message: string): ConditionUpdate => ({
  type: 'SecretWritten',
  status: 'True',
  reason: SecretWrittenReason.SecretWritten,
  message,
});

export const secretNotWritten = (reason: SecretWrittenReason, message: string): ConditionUpdate => ({
  type: 'SecretWritten',
  status: 'False',
  reason,
  message,
});

/**
 * Credential vending is enabled in a namespace by a RoleBinding that gives the controller the Secret
 * rights of the ClusterRole keymaster-credential-vending there (deploy/rbac; the chart's
 * credentialVending.allowedNamespaces.list): the message says what ops create.
 */
export const secretAccessNotGranted = (namespace: string, secretName: string): ConditionUpdate =>
  secretNotWritten(
    SecretWrittenReason.SecretAccessNotGranted,
    `Keymaster may not write Secret ${secretName}: it has no Secret rights in namespace ${namespace}, where credential vending is not enabled. ` +
      `Ops enable it with a RoleBinding of the ClusterRole ${CREDENTIAL_VENDING_ROLE} to Keymaster's ServiceAccount: ` +
      `kubectl create rolebinding ${CREDENTIAL_VENDING_ROLE} --namespace ${namespace} --clusterrole ${CREDENTIAL_VENDING_ROLE} --serviceaccount keymaster-system:keymaster ` +
      `(the default install's ServiceAccount), or with Helm, ${namespace} in credentialVending.allowedNamespaces.list. The request is served within 30 s of it`,
  );

/** A request's Ready: True when the Secret holds what the request asks for. */
export const requestReady = (conditions: readonly Condition[]): ConditionUpdate =>
  readyOf(
    ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'SecretWritten'],
    conditions,
    'The Secret holds the requested credentials',
  );
