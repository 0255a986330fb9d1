import type { Clock } from '../../clock.js';
import { parsePolicyDocument, type PolicyDocument } from '../../iam/policy.js';
import { ApiError } from '../../protocols/api-error.js';
import { element, elements, type Xml } from '../../protocols/xml.js';
import { checkPackedSize } from './packed-size.js';
import type { Credential, Role, RoleSession } from '../../world/directory.js';
import type { WorldState } from '../../world/state.js';

export const DEFAULT_DURATION = 3600;
const CHAINED_MAX_DURATION = 3600;

/**
 * The `Policy` and `PolicyArns` of a call: session policies that narrow the session, or MalformedPolicyDocument;
 * PackedPolicyTooLarge when they and the session tags do not fit AWS's packed budget.
 */
export function readSessionPolicies(
  input: {
    readonly policy?: string;
    readonly policyArns: readonly string[];
    readonly tags?: readonly (readonly [string, string])[];
  },
  world: WorldState,
): PolicyDocument[] {
  const policies: PolicyDocument[] = [];
  if (input.policy !== undefined) {
    const document = parsePolicyDocument(input.policy);
    if (typeof document === 'string') throw new ApiError('MalformedPolicyDocument', document);
    policies.push(document);
  }
  for (const arn of input.policyArns) {
    const managed = world.directory.managedPolicy(arn);
    if (managed === undefined) {
      throw new ApiError('MalformedPolicyDocument', `Policy ${arn} does not exist or is not attachable.`);
    }
    policies.push(managed.document);
  }
  checkPackedSize({
    ...(input.policy === undefined ? {} : { policy: policies[0]!.source }),
    policyArns: input.policyArns,
    tags: input.tags ?? [],
  });
  return policies;
}

/** The duration limits: one hour when a role session assumes a role (chaining), the role's maximum otherwise. */
export function checkDuration(duration: number, role: Role, chained: boolean): void {
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
}

export interface SessionRequest {
  readonly role: Role;
  readonly sessionName: string;
  readonly durationSeconds: number;
  readonly sessionPolicies: readonly PolicyDocument[];
  readonly tags: ReadonlyMap<string, string>;
  readonly transitiveTagKeys: ReadonlySet<string>;
  readonly chained: boolean;
  readonly sourceArn: string;
}

/** Records a new session of the role and issues its `ASIA...` credentials, expiring on the emulator's clock. */
export function startSession(
  world: WorldState,
  clock: Clock,
  request: SessionRequest,
): { session: RoleSession; credential: Credential } {
  const { role, sessionName } = request;
  const session: RoleSession = {
    kind: 'assumed-role',
    accountId: role.accountId,
    role,
    sessionName,
    arn: `arn:aws:sts::${role.accountId}:assumed-role/${role.name}/${sessionName}`,
    userId: `${role.roleId}:${sessionName}`,
    sessionPolicies: request.sessionPolicies,
    tags: request.tags,
    transitiveTagKeys: request.transitiveTagKeys,
    expiresAtMs: clock.nowMs() + request.durationSeconds * 1000,
    chained: request.chained,
    sourceArn: request.sourceArn,
  };
  return { session, credential: world.directory.issueSession(session) };
}

/** The `Credentials` and `AssumedRoleUser` elements of an answer. */
export function sessionXml(session: RoleSession, credential: Credential): Xml {
  return elements(
    element('Credentials', [
      element('AccessKeyId', credential.accessKeyId),
      element('SecretAccessKey', credential.secretAccessKey),
      element('SessionToken', credential.sessionToken),
      element('Expiration', new Date(session.expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    ]),
    element('AssumedRoleUser', [element('AssumedRoleId', session.userId), element('Arn', session.arn)]),
  );
}
