import { InvalidCredentialsRequestError, type Condition } from '@keymaster/api';
import { VendingRefusedError } from '@keymaster/identity';
import { readyOf, type ConditionUpdate } from '../awscluster/conditions.js';
import { explain, IDENTITY_OK, identityVerdict, type IdentityVerdict } from '../awscluster/identity-conditions.js';

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
        reason: 'NotAttempted',
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
        reason: 'InvalidRequest',
        message: `${error.message}. ${error.hint ?? ''}`.trim(),
      },
      transient: false,
    };
  return identityVerdict(error);
}

export const secretWritten = (message: string): ConditionUpdate => ({
  type: 'SecretWritten',
  status: 'True',
  reason: 'SecretWritten',
  message,
});

export const secretNotWritten = (reason: string, message: string): ConditionUpdate => ({
  type: 'SecretWritten',
  status: 'False',
  reason,
  message,
});

/** A request's Ready: True when the Secret holds what the request asks for. */
export const requestReady = (conditions: readonly Condition[]): ConditionUpdate =>
  readyOf(
    ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'SecretWritten'],
    conditions,
    'The Secret holds the requested credentials',
  );
