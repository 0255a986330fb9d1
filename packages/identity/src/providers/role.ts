import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import type { AWSClusterRoleIdentity, SessionPolicy } from '@keymaster/api';
import { awsErrorCode } from '../aws-codes.js';
import { stsCallError } from '../aws-failures.js';
import { digest } from '../digest.js';
import { IdentityError } from '../errors.js';
import { externalIDConfidential, externalIDSource, loadExternalID, PLAIN_EXTERNAL_ID } from '../external-id.js';
import { defaultSessionName } from '../session-name.js';
import { CONTROLLER_IDENTITY } from './controller.js';
import type { ChainLink, CredentialContext, CredentialSource, KindProvider } from './provider.js';
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

/** A role link with what its provider loaded: the externalID read from its Secret, if it names one. */
type RoleLink = ChainLink<AWSClusterRoleIdentity> & { material?: string | undefined };

/** The externalID a role link sends: its Secret's, or the plain spec.externalID kept for compatibility. */
const externalIDOf = ({ identity, material }: RoleLink): string | undefined => material ?? identity.spec.externalID;

/**
 * The AssumeRole request for a role identity, every field of its spec sent (policyARNs included), or
 * with a request's session policy and duration in place of the identity's own.
 */
export function assumeRoleInput(link: RoleLink, session?: SessionPolicy) {
  const { spec } = link.identity;
  const externalID = externalIDOf(link);
  return {
    RoleArn: spec.roleARN,
    RoleSessionName: spec.sessionName ?? defaultSessionName(link.identity.metadata.name ?? ''),
    ...sessionInput(spec, session),
    ...(externalID === undefined ? {} : { ExternalId: externalID }),
    ...(spec.sessionTags?.length
      ? { Tags: spec.sessionTags.map(({ key, value }) => ({ Key: key, Value: value })) }
      : {}),
    ...(spec.transitiveTagKeys?.length ? { TransitiveTagKeys: spec.transitiveTagKeys } : {}),
  };
}

function assumeRoleHint(name: string, role: AWSClusterRoleIdentity): string {
  const code = awsErrorCode(name);
  if (code === 'AccessDenied') {
    const externalID = externalIDSource(role);
    return (
      `The trust policy of ${role.spec.roleARN} must trust the source identity's principal` +
      (externalID ? ` and require ${externalID} (sts:ExternalId)` : '') +
      ', and the source must be allowed sts:AssumeRole on the role.'
    );
  }
  if (code === 'ValidationError')
    return "Check durationSeconds against the role's maximum session duration (at most 3600 s when chained) and the session parameters.";
  if (code === 'PackedPolicyTooLarge') return PACKED_POLICY_HINT;
  return "See AWS's message above; the controller retries with backoff.";
}

/** sts:AssumeRole with the source's live credentials (every renewal asks the source for its current ones). */
function assumeRole(link: RoleLink, context: CredentialContext, session?: SessionPolicy): CredentialSource {
  const { kind, name, identity } = link;
  return async () => {
    const sts = context.sourceSts();
    let output;
    try {
      output = await sts.send(new AssumeRoleCommand(assumeRoleInput(link, session)));
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
export const roleProvider: KindProvider<AWSClusterRoleIdentity, string | undefined> = {
  kind: 'AWSClusterRoleIdentity',
  callsSts: true,
  source: (identity) => identity.spec.sourceIdentityRef ?? CONTROLLER_IDENTITY,
  secrets: ({ spec }) => (spec.externalIDSecretRef ? [spec.externalIDSecretRef.name] : []),
  load: loadExternalID,
  // The fields sent to AssumeRole, the externalID as a digest wherever it comes from (never the value).
  credentialInputs: (link) => {
    const { allowedNamespaces, credentialVending, resourceTags, externalID, externalIDSecretRef, ...assumeRole } =
      link.identity.spec;
    const sent = externalIDOf(link);
    return { ...assumeRole, ...(sent === undefined ? {} : { externalID: digest(sent) }) };
  },
  // Signed with the source's live credentials: every renewal asks the source for its current ones.
  credentials: (link, context) => assumeRole(link, context),
  vending: { narrowed: (link, context, session) => assumeRole(link, context, session) },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) => `role ${identity.spec.roleARN}`,
  warnings: (identity) =>
    identity.spec.externalID === undefined
      ? []
      : [`AWSClusterRoleIdentity/${identity.metadata.name}: ${PLAIN_EXTERNAL_ID}`],
  status: (identity, { renewedAt }) => ({
    conditions: [externalIDConfidential(identity)],
    ...(renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {}),
  }),
};
