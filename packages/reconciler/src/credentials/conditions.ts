import { InvalidCredentialsRequestError, type Condition } from '@keymaster/api';
import { findCondition, type ConditionType, type ConditionUpdate } from '../awscluster/conditions.js';
import { IDENTITY_OK, identityVerdict, type IdentityVerdict } from '../awscluster/identity-conditions.js';

/** The identity conditions of a refused request; a request the controller cannot serve as written is no AWS failure. */
export function refusalVerdict(error: unknown): IdentityVerdict {
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

const READY_INPUTS: ConditionType[] = ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'SecretWritten'];

/** Ready: True when the Secret holds what the request asks for; else the first input False, then the first not yet True. */
export function requestReady(conditions: readonly Condition[]): ConditionUpdate {
  const inputs = READY_INPUTS.map((type) => ({ type, condition: findCondition(conditions, type) }));
  const failed = inputs.find(({ condition }) => condition?.status === 'False')?.condition;
  if (failed) return { type: 'Ready', status: 'False', reason: failed.reason, message: failed.message };
  for (const { type, condition } of inputs) {
    if (!condition)
      return { type: 'Ready', status: 'Unknown', reason: 'Reconciling', message: `${type} is not known yet` };
    if (condition.status !== 'True')
      return { type: 'Ready', status: 'Unknown', reason: condition.reason, message: condition.message };
  }
  return { type: 'Ready', status: 'True', reason: 'Ready', message: 'The Secret holds the requested credentials' };
}
