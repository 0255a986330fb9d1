import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import type { AWSClusterRoleIdentity } from '@keymaster/api';
import { stsCallError } from '../aws-failures.js';
import { IdentityError } from '../errors.js';
import { defaultSessionName } from '../session-name.js';
import { CONTROLLER_IDENTITY } from './controller.js';
import type { IdentityProvider } from './provider.js';
import { sessionCredentials } from './session-credentials.js';

export const DEFAULT_DURATION_SECONDS = 3600;

/** The AssumeRole request for a role identity, every field of its spec sent (policyARNs included). */
export function assumeRoleInput(role: AWSClusterRoleIdentity) {
  const { spec } = role;
  return {
    RoleArn: spec.roleARN,
    RoleSessionName: spec.sessionName ?? defaultSessionName(role.metadata.name ?? ''),
    DurationSeconds: spec.durationSeconds ?? DEFAULT_DURATION_SECONDS,
    ...(spec.externalID === undefined ? {} : { ExternalId: spec.externalID }),
    ...(spec.inlinePolicy === undefined ? {} : { Policy: spec.inlinePolicy }),
    ...(spec.policyARNs?.length ? { PolicyArns: spec.policyARNs.map((arn) => ({ arn })) } : {}),
    ...(spec.sessionTags?.length
      ? { Tags: spec.sessionTags.map(({ key, value }) => ({ Key: key, Value: value })) }
      : {}),
    ...(spec.transitiveTagKeys?.length ? { TransitiveTagKeys: spec.transitiveTagKeys } : {}),
  };
}

function assumeRoleHint(code: string, role: AWSClusterRoleIdentity): string {
  if (code === 'AccessDenied') {
    return (
      `The trust policy of ${role.spec.roleARN} must trust the source identity's principal` +
      (role.spec.externalID ? ' and require exactly this externalID (sts:ExternalId)' : '') +
      ', and the source must be allowed sts:AssumeRole on the role.'
    );
  }
  if (code === 'ValidationError')
    return "Check durationSeconds against the role's maximum session duration (at most 3600 s when chained) and the session parameters.";
  return "See AWS's message above; the controller retries with backoff.";
}

/** An IAM role assumed with sts:AssumeRole on top of its source link's credentials. */
export const roleProvider: IdentityProvider<AWSClusterRoleIdentity> = {
  kind: 'AWSClusterRoleIdentity',
  source: (identity) => identity.spec.sourceIdentityRef ?? CONTROLLER_IDENTITY,
  secrets: () => [],
  // The fields sent to AssumeRole.
  credentialInputs: ({ identity }) => {
    const { allowedNamespaces, resourceTags, ...assumeRole } = identity.spec;
    return assumeRole;
  },
  // Signed with the source's live credentials: every renewal asks the source for its current ones.
  credentials:
    ({ kind, name, identity }, context) =>
    async () => {
      const sts = context.sourceSts();
      let output;
      try {
        output = await sts.send(new AssumeRoleCommand(assumeRoleInput(identity)));
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
    },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) => `role ${identity.spec.roleARN}`,
  status: (_identity, { renewedAt }) => (renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {}),
};
