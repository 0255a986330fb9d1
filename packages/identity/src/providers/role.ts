import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import type { AWSClusterRoleIdentity, SessionPolicy } from '@keymaster/api';
import { awsErrorCode } from '../aws-codes.js';
import { stsCallError } from '../aws-failures.js';
import { IdentityError } from '../errors.js';
import { defaultSessionName } from '../session-name.js';
import { CONTROLLER_IDENTITY } from './controller.js';
import type { ChainLink, CredentialContext, CredentialSource, IdentityProvider } from './provider.js';
import { sessionCredentials } from './session-credentials.js';

export const DEFAULT_DURATION_SECONDS = 3600;

/** AWS's packed-size limit is unpublished: it can only be reported when STS refuses, with what helps. */
export const PACKED_POLICY_HINT =
  'AWS packs the session policy, policy ARNs and session tags into a binary format whose limit it does not publish: shorten the statements (wildcards, fewer statements, fewer session tags) or move them into a managed policy listed in policyARNs. AWS is not asked again until they change.';

/** The session policies and duration of a role session: the identity's own, or a request's instead. */
export function sessionInput(
  spec: { inlinePolicy?: string; policyARNs?: string[]; durationSeconds?: number },
  session?: SessionPolicy,
) {
  const policy = session ? session.policy : spec.inlinePolicy;
  const arns = session ? session.policyARNs : (spec.policyARNs ?? []);
  return {
    DurationSeconds: session?.durationSeconds ?? spec.durationSeconds ?? DEFAULT_DURATION_SECONDS,
    ...(policy === undefined ? {} : { Policy: policy }),
    ...(arns.length ? { PolicyArns: arns.map((arn) => ({ arn })) } : {}),
  };
}

/**
 * The AssumeRole request for a role identity, every field of its spec sent (policyARNs included), or
 * with a request's session policy and duration in place of the identity's own.
 */
export function assumeRoleInput(role: AWSClusterRoleIdentity, session?: SessionPolicy) {
  const { spec } = role;
  return {
    RoleArn: spec.roleARN,
    RoleSessionName: spec.sessionName ?? defaultSessionName(role.metadata.name ?? ''),
    ...sessionInput(spec, session),
    ...(spec.externalID === undefined ? {} : { ExternalId: spec.externalID }),
    ...(spec.sessionTags?.length
      ? { Tags: spec.sessionTags.map(({ key, value }) => ({ Key: key, Value: value })) }
      : {}),
    ...(spec.transitiveTagKeys?.length ? { TransitiveTagKeys: spec.transitiveTagKeys } : {}),
  };
}

function assumeRoleHint(name: string, role: AWSClusterRoleIdentity): string {
  const code = awsErrorCode(name);
  if (code === 'AccessDenied') {
    return (
      `The trust policy of ${role.spec.roleARN} must trust the source identity's principal` +
      (role.spec.externalID ? ' and require exactly this externalID (sts:ExternalId)' : '') +
      ', and the source must be allowed sts:AssumeRole on the role.'
    );
  }
  if (code === 'ValidationError')
    return "Check durationSeconds against the role's maximum session duration (at most 3600 s when chained) and the session parameters.";
  if (code === 'PackedPolicyTooLarge') return PACKED_POLICY_HINT;
  return "See AWS's message above; the controller retries with backoff.";
}

/** sts:AssumeRole with the source's live credentials (every renewal asks the source for its current ones). */
function assumeRole(
  { kind, name, identity }: ChainLink<AWSClusterRoleIdentity>,
  context: CredentialContext,
  session?: SessionPolicy,
): CredentialSource {
  return async () => {
    const sts = context.sourceSts();
    let output;
    try {
      output = await sts.send(new AssumeRoleCommand(assumeRoleInput(identity, session)));
    } catch (error) {
      // A failure of the source's own credentials is already named, and no AssumeRole was sent.
      if (error instanceof IdentityError) throw error;
      context.stsCall('AssumeRole', error as Error);
      throw stsCallError(
        { kind, name },
        'sts:AssumeRole',
        error,
        context.stsEndpoint,
        assumeRoleHint((error as Error).name, identity),
      );
    }
    context.stsCall('AssumeRole');
    return sessionCredentials({ kind, name }, 'sts:AssumeRole', output.Credentials);
  };
}

/** An IAM role assumed with sts:AssumeRole on top of its source link's credentials. */
export const roleProvider: IdentityProvider<AWSClusterRoleIdentity> = {
  kind: 'AWSClusterRoleIdentity',
  source: (identity) => identity.spec.sourceIdentityRef ?? CONTROLLER_IDENTITY,
  secrets: () => [],
  // The fields sent to AssumeRole.
  credentialInputs: ({ identity }) => {
    const { allowedNamespaces, credentialVending, resourceTags, ...assumeRole } = identity.spec;
    return assumeRole;
  },
  // Signed with the source's live credentials: every renewal asks the source for its current ones.
  credentials: (link, context) => assumeRole(link, context),
  vending: { narrowed: (link, context, session) => assumeRole(link, context, session) },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) => `role ${identity.spec.roleARN}`,
  status: (_identity, { renewedAt }) => (renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {}),
};
