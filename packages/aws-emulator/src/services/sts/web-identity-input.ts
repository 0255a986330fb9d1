import type { QueryParams } from '../../protocols/query-params.js';
import { Constraints } from '../constraints.js';
import { checkRoleArn, readPolicyParams, readRoleParams } from './assume-role-input.js';

/** AssumeRoleWithWebIdentity's parameters, read from the query and checked against STS's constraints. */
export interface WebIdentityInput {
  readonly roleArn: string;
  readonly roleSessionName: string;
  readonly webIdentityToken: string;
  readonly durationSeconds?: number;
  readonly policy?: string;
  readonly policyArns: readonly string[];
}

export function readWebIdentityInput(params: QueryParams): WebIdentityInput {
  const check = new Constraints();
  const { roleArn, roleSessionName, durationSeconds } = readRoleParams(params, check);
  const webIdentityToken = params.get('WebIdentityToken');
  // The token is a secret: a constraint it fails never shows it (AWS redacts sensitive members).
  if (check.required('webIdentityToken', webIdentityToken)) {
    check.length('webIdentityToken', webIdentityToken, 4, 20000, { sensitive: true });
  }
  check.length('providerId', params.get('ProviderId'), 4, 2048);
  const { policy, policyArns } = readPolicyParams(params, check);
  check.throwIfAny('ValidationError');
  checkRoleArn(roleArn!);
  return {
    roleArn: roleArn!,
    roleSessionName: roleSessionName!,
    webIdentityToken: webIdentityToken!,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(policy === undefined ? {} : { policy }),
    policyArns,
  };
}
