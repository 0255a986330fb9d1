import {
  type IdentityLink,
  CredentialFailureReason,
  PrincipalCredentialRetrievedReason,
  PrincipalUsageAllowedReason,
  type ConditionUpdate,
} from '@keymaster/api';
import {
  IdentityDeletingError,
  IdentityError,
  linkName,
  NamespaceNotAllowedError,
  type IdentitySession,
} from '@keymaster/identity';
import { deletingNotice } from '../awsclusteridentity/deletions.js';

export interface IdentityVerdict {
  allowed: ConditionUpdate<'PrincipalUsageAllowed'>;
  retrieved: ConditionUpdate<'PrincipalCredentialRetrieved'>;
  /** Whether trying again later may help without anyone changing anything (AWS or network trouble). */
  transient: boolean;
}

/** A failed resolve's verdict, with what status.identityChain shows of it. */
export interface IdentityRefusal extends IdentityVerdict {
  /** The chain as far as it was checked (`IdentityError.chain`); empty when nothing was. */
  chain: IdentityLink[];
}

/** A failure as conditions word it: what is wrong, then the fix. */
export const explain = (error: Error) =>
  error instanceof IdentityError && error.hint ? `${error.message}. ${error.hint}` : error.message;

export const IDENTITY_OK: IdentityVerdict = {
  allowed: {
    type: 'PrincipalUsageAllowed',
    status: 'True',
    reason: PrincipalUsageAllowedReason.PrincipalUsageAllowed,
    message: 'Every identity of the chain allows this namespace',
  },
  retrieved: {
    type: 'PrincipalCredentialRetrieved',
    status: 'True',
    reason: PrincipalCredentialRetrievedReason.PrincipalCredentialRetrieved,
    message: 'Credentials resolved',
  },
  transient: false,
};

/** PrincipalUsageAllowed for a resolved chain: True, and a notice when links of it are being deleted. */
export function usageAllowed(session: Pick<IdentitySession, 'deleting'>): ConditionUpdate<'PrincipalUsageAllowed'> {
  if (session.deleting.length === 0) return IDENTITY_OK.allowed;
  return {
    ...IDENTITY_OK.allowed,
    reason: PrincipalUsageAllowedReason.IdentityDeleting,
    message: `${IDENTITY_OK.allowed.message}. ${deletingNotice(session.deleting.map(linkName))}`,
  };
}

/** The two identity conditions for a failed resolve, with reasons that name the failure. */
export function identityVerdict(error: unknown): IdentityRefusal {
  const failure = error instanceof Error ? error : new Error(String(error));
  return { ...conditionsFor(failure), chain: failure instanceof IdentityError ? failure.chain : [] };
}

function conditionsFor(failure: Error): IdentityVerdict {
  const message = explain(failure);
  const retrieved = (reason: PrincipalCredentialRetrievedReason): ConditionUpdate<'PrincipalCredentialRetrieved'> => ({
    type: 'PrincipalCredentialRetrieved',
    status: 'False',
    reason,
    message,
  });
  const unknownUsage = (reason: PrincipalUsageAllowedReason): ConditionUpdate<'PrincipalUsageAllowed'> => ({
    type: 'PrincipalUsageAllowed',
    status: 'Unknown',
    reason,
    message: 'Not every identity of the chain could be checked',
  });
  if (failure instanceof IdentityDeletingError) {
    return {
      allowed: {
        type: 'PrincipalUsageAllowed',
        status: 'False',
        reason: PrincipalUsageAllowedReason.IdentityDeleting,
        message,
      },
      retrieved: {
        type: 'PrincipalCredentialRetrieved',
        status: 'Unknown',
        reason: PrincipalCredentialRetrievedReason.NotAttempted,
        message: 'Not attempted: an identity of the chain is being deleted and accepts no new AWSClusters',
      },
      transient: false,
    };
  }
  if (failure instanceof NamespaceNotAllowedError) {
    return {
      allowed: { type: 'PrincipalUsageAllowed', status: 'False', reason: failure.reason, message },
      retrieved: {
        type: 'PrincipalCredentialRetrieved',
        status: 'Unknown',
        reason: PrincipalCredentialRetrievedReason.NotAttempted,
        message: 'Not attempted: the namespace may not use the identity chain',
      },
      transient: false,
    };
  }
  // Every other refusal names its reason (its kind's provider chose it); usage stays allowed when
  // every link had allowed the namespace before it (keys, tokens and AWS come after).
  if (failure instanceof IdentityError)
    return {
      allowed: failure.usageChecked ? IDENTITY_OK.allowed : unknownUsage(failure.reason),
      retrieved: retrieved(failure.reason),
      transient: failure.transient,
    };
  return {
    allowed: unknownUsage(CredentialFailureReason.CredentialRetrievalFailed),
    retrieved: retrieved(CredentialFailureReason.CredentialRetrievalFailed),
    transient: true,
  };
}
