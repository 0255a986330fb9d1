import { parsePolicyDocument, type PolicyDocument } from '../../iam/policy.js';
import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { element, elements, type Xml } from '../../protocols/xml.js';
import type { RoleSession } from '../../world/directory.js';
import type { CallContext } from '../service.js';
import { readAssumeRoleInput, type AssumeRoleInput } from './assume-role-input.js';
import { judgeTrust } from './trust.js';

const DEFAULT_DURATION = 3600;
const CHAINED_MAX_DURATION = 3600;

/**
 * STS AssumeRole: checks the role's trust (principal, ExternalId, sts:TagSession for session tags) and the
 * caller's own permission, the duration limits (the role's maximum, one hour when chaining), and issues
 * `ASIA...` credentials for a session narrowed by the given session policies.
 */
export function assumeRole(params: QueryParams, call: CallContext): Xml {
  const input = readAssumeRoleInput(params);
  const caller = call.principal;
  call.note({
    roleArn: input.roleArn,
    roleSessionName: input.roleSessionName,
    ...(input.externalId === undefined ? {} : { externalId: input.externalId }),
    ...(input.durationSeconds === undefined ? {} : { durationSeconds: input.durationSeconds }),
  });
  const sessionPolicies = readSessionPolicies(input, call);
  const role = call.world.directory.role(input.roleArn);
  const tagging = input.tags.length > 0;
  const refused = () =>
    call.accessDenied(`User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${input.roleArn}`);
  if (role === undefined) throw refused();
  const trust = judgeTrust(role, caller, input.externalId, tagging);
  if (!trust.trusted) throw refused();
  for (const action of tagging ? ['sts:AssumeRole', 'sts:TagSession'] : ['sts:AssumeRole']) {
    const permission = call.permits(action, role.arn);
    if (!permission.allowed && (permission.explicitDeny || !trust.namesCaller))
      throw call.accessDenied(permission.message);
  }

  const chained = caller.kind === 'assumed-role';
  const duration = input.durationSeconds ?? DEFAULT_DURATION;
  if (chained && duration > CHAINED_MAX_DURATION) {
    throw new ApiError(
      'ValidationError',
      'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
    );
  }
  if (duration > role.maxSessionDuration) {
    throw new ApiError(
      'ValidationError',
      'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    );
  }

  const inherited = chained ? transitiveTags(caller) : [];
  const overridden = inherited.find(([key]) => input.tags.some(([k]) => k.toLowerCase() === key.toLowerCase()));
  if (overridden !== undefined) {
    throw new ApiError(
      'InvalidParameterValue',
      `The session tag ${overridden[0]} is transitive and cannot be overridden.`,
    );
  }
  const session: RoleSession = {
    kind: 'assumed-role',
    accountId: role.accountId,
    role,
    sessionName: input.roleSessionName,
    arn: `arn:aws:sts::${role.accountId}:assumed-role/${role.name}/${input.roleSessionName}`,
    userId: `${role.roleId}:${input.roleSessionName}`,
    sessionPolicies,
    tags: new Map([...inherited, ...input.tags]),
    transitiveTagKeys: new Set([...inherited.map(([key]) => key), ...input.transitiveTagKeys]),
    expiresAtMs: call.clock.nowMs() + duration * 1000,
    chained,
    sourceArn: caller.arn,
  };
  const credential = call.world.directory.issueSession(session);
  call.note({ issuedAccessKeyId: credential.accessKeyId, sessionArn: session.arn });
  return elements(
    element('Credentials', [
      element('AccessKeyId', credential.accessKeyId),
      element('SecretAccessKey', credential.secretAccessKey),
      element('SessionToken', credential.sessionToken),
      element('Expiration', new Date(session.expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    ]),
    element('AssumedRoleUser', [element('AssumedRoleId', session.userId), element('Arn', session.arn)]),
    element('SourceIdentity', input.sourceIdentity),
  );
}

function readSessionPolicies(input: AssumeRoleInput, call: CallContext): PolicyDocument[] {
  const policies: PolicyDocument[] = [];
  if (input.policy !== undefined) {
    const document = parsePolicyDocument(input.policy);
    if (typeof document === 'string') throw new ApiError('MalformedPolicyDocument', document);
    policies.push(document);
  }
  for (const arn of input.policyArns) {
    const managed = call.world.directory.managedPolicy(arn);
    if (managed === undefined) {
      throw new ApiError('MalformedPolicyDocument', `Policy ${arn} does not exist or is not attachable.`);
    }
    policies.push(managed.document);
  }
  return policies;
}

function transitiveTags(session: RoleSession): [string, string][] {
  return [...session.tags].filter(([key]) => session.transitiveTagKeys.has(key));
}
