import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { element, elements, type Xml } from '../../protocols/xml.js';
import type { RoleSession } from '../../world/directory.js';
import type { CallContext } from '../service.js';
import { readAssumeRoleInput } from './assume-role-input.js';
import { checkDuration, DEFAULT_DURATION, readSessionPolicies, sessionXml, startSession } from './session.js';
import { judgeTrust } from './trust.js';

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
  const sessionPolicies = readSessionPolicies(input, call.world);
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
  const durationSeconds = input.durationSeconds ?? DEFAULT_DURATION;
  checkDuration(durationSeconds, role, chained);

  const inherited = chained ? transitiveTags(caller) : [];
  const overridden = inherited.find(([key]) => input.tags.some(([k]) => k.toLowerCase() === key.toLowerCase()));
  if (overridden !== undefined) {
    throw new ApiError(
      'InvalidParameterValue',
      `The session tag ${overridden[0]} is transitive and cannot be overridden.`,
    );
  }
  const { session, credential } = startSession(call.world, call.clock, {
    role,
    sessionName: input.roleSessionName,
    durationSeconds,
    sessionPolicies,
    tags: new Map([...inherited, ...input.tags]),
    transitiveTagKeys: new Set([...inherited.map(([key]) => key), ...input.transitiveTagKeys]),
    chained,
    sourceArn: caller.arn,
  });
  call.note({ issuedAccessKeyId: credential.accessKeyId, sessionArn: session.arn });
  return elements(sessionXml(session, credential), element('SourceIdentity', input.sourceIdentity));
}

function transitiveTags(session: RoleSession): [string, string][] {
  return [...session.tags].filter(([key]) => session.transitiveTagKeys.has(key));
}
