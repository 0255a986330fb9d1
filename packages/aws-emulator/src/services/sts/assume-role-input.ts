import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { Constraints } from '../constraints.js';

/** AssumeRole's parameters, read from the query and checked against STS's constraints. */
export interface AssumeRoleInput {
  readonly roleArn: string;
  readonly roleSessionName: string;
  readonly durationSeconds?: number;
  readonly externalId?: string;
  readonly policy?: string;
  readonly policyArns: readonly string[];
  readonly tags: readonly (readonly [string, string])[];
  readonly transitiveTagKeys: readonly string[];
  readonly sourceIdentity?: string;
}

const NAME = /^[\w+=,.@-]*$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]*$/;
const POLICY = /^[\t\n\r\u0020-\u00FF]+$/;
const TAG = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/** The role and session of an AssumeRole* call, read and checked (the role ARN's shape is checked later). */
export function readRoleParams(params: QueryParams, check: Constraints) {
  const roleArn = params.get('RoleArn');
  const roleSessionName = params.get('RoleSessionName');
  const durationText = params.get('DurationSeconds');
  const durationSeconds = durationText === undefined ? undefined : Number(durationText);
  if (check.required('roleArn', roleArn)) check.length('roleArn', roleArn, 20, 2048);
  if (check.required('roleSessionName', roleSessionName)) {
    check.length('roleSessionName', roleSessionName, 2, 64);
    check.pattern('roleSessionName', roleSessionName, NAME, '[\\w+=,.@-]*');
  }
  check.range('durationSeconds', durationSeconds, 900, 43200);
  return { roleArn, roleSessionName, durationSeconds };
}

/** The session policies of an AssumeRole* call: `Policy` and `PolicyArns`, read and checked. */
export function readPolicyParams(params: QueryParams, check: Constraints) {
  const policy = params.get('Policy');
  const policyArns = (params.structs('PolicyArns.member') ?? []).map((item) => item.get('arn') ?? '');
  check.length('policy', policy, 1, 2048);
  check.pattern('policy', policy, POLICY, '[\\u0009\\u000A\\u000D\\u0020-\\u00FF]+');
  check.size(
    'policyArns',
    policyArns.map((arn) => ({ arn })),
    0,
    10,
  );
  policyArns.forEach((arn, i) => check.length(`policyArns.${i + 1}.member.arn`, arn, 20, 2048));
  return { policy, policyArns };
}

/** A RoleArn that passed the length checks but is no role ARN: AssumeRole* answer ValidationError. */
export function checkRoleArn(roleArn: string): void {
  if (!ROLE_ARN.test(roleArn)) throw new ApiError('ValidationError', `${roleArn} is invalid`);
}

export function readAssumeRoleInput(params: QueryParams): AssumeRoleInput {
  const check = new Constraints();
  const { roleArn, roleSessionName, durationSeconds } = readRoleParams(params, check);
  const externalId = params.get('ExternalId');
  const sourceIdentity = params.get('SourceIdentity');
  const tags = (params.structs('Tags.member') ?? []).map(
    (item) => [item.get('Key') ?? '', item.get('Value') ?? ''] as const,
  );
  const transitiveTagKeys = params.list('TransitiveTagKeys.member') ?? [];

  check.length('externalId', externalId, 2, 1224);
  check.pattern('externalId', externalId, EXTERNAL_ID, '[\\w+=,.@:\\/-]*');
  const { policy, policyArns } = readPolicyParams(params, check);
  check.size(
    'tags',
    tags.map(([Key, Value]) => ({ Key, Value })),
    0,
    50,
  );
  tags.forEach(([key, value], i) => {
    check.length(`tags.${i + 1}.member.key`, key, 1, 128);
    check.pattern(`tags.${i + 1}.member.key`, key, TAG, '[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]+');
    check.length(`tags.${i + 1}.member.value`, value, 0, 256);
    check.pattern(`tags.${i + 1}.member.value`, value, TAG, '[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*');
  });
  check.size('transitiveTagKeys', transitiveTagKeys, 0, 50);
  transitiveTagKeys.forEach((key, i) => check.length(`transitiveTagKeys.${i + 1}.member`, key, 1, 128));
  check.length('sourceIdentity', sourceIdentity, 2, 64);
  check.pattern('sourceIdentity', sourceIdentity, NAME, '[\\w+=,.@-]*');
  check.throwIfAny('ValidationError');

  checkRoleArn(roleArn!);
  const tagKeys = new Set(tags.map(([key]) => key.toLowerCase()));
  if (tagKeys.size < tags.length) {
    throw new ApiError(
      'InvalidParameterValue',
      'Duplicate tag keys found. Please note that Tag keys are case insensitive.',
    );
  }
  if (tags.some(([key]) => key.toLowerCase().startsWith('aws:'))) {
    throw new ApiError('InvalidParameterValue', "Tag keys starting with 'aws:' are reserved for internal use.");
  }
  const stray = transitiveTagKeys.find((key) => !tagKeys.has(key.toLowerCase()));
  if (stray !== undefined) {
    throw new ApiError('InvalidParameterValue', `The transitive tag key ${stray} is not one of the session's tags.`);
  }
  return {
    roleArn: roleArn!,
    roleSessionName: roleSessionName!,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(externalId === undefined ? {} : { externalId }),
    ...(policy === undefined ? {} : { policy }),
    ...(sourceIdentity === undefined ? {} : { sourceIdentity }),
    policyArns,
    tags,
    transitiveTagKeys,
  };
}
