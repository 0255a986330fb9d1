import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import type { AWSClusterRoleIdentity } from '@keymaster/api';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { stsCallError } from './aws-failures.js';
import { AwsCredentialError, ControllerCredentialsError, IdentityError } from './errors.js';
import { defaultSessionName } from './session-name.js';

/** Obtains a fresh set of credentials for one link; RefreshingCredentials decides when. */
export type CredentialSource = () => Promise<AwsCredentialIdentity>;

export const DEFAULT_DURATION_SECONDS = 3600;

/**
 * The controller's own credentials (by default the SDK's default chain); a failure to load them is
 * named as the controller's, so that no tenant is told to check keys it does not have.
 */
export const fromController =
  (provider: AwsCredentialIdentityProvider): CredentialSource =>
  async () => {
    try {
      return await provider();
    } catch (error) {
      throw new ControllerCredentialsError((error as Error).message || (error as Error).name, error);
    }
  };

/** Keys read from a static identity's Secret. */
export const fromStaticKeys =
  (keys: AwsCredentialIdentity): CredentialSource =>
  () =>
    Promise.resolve(keys);

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

/**
 * A role session assumed with `sts`, a client that signs with the source link's live credentials:
 * every renewal asks the source for its current credentials, never a snapshot.
 */
export function fromAssumeRole(
  sts: STSClient,
  role: AWSClusterRoleIdentity,
  onCall: (error?: Error) => void,
  endpoint: string,
): CredentialSource {
  const link = { kind: role.kind, name: role.metadata.name ?? '' };
  return async () => {
    let output;
    try {
      output = await sts.send(new AssumeRoleCommand(assumeRoleInput(role)));
    } catch (error) {
      // A failure of the source's own credentials is already named, and no AssumeRole was sent.
      if (error instanceof IdentityError) throw error;
      onCall(error as Error);
      throw stsCallError(link, 'sts:AssumeRole', error, endpoint, assumeRoleHint((error as Error).name, role));
    }
    onCall();
    const credentials = output.Credentials;
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey) {
      throw new AwsCredentialError(
        link,
        'sts:AssumeRole',
        'IncompleteResponse',
        'STS returned no credentials',
        'Retry; report it if it persists.',
      );
    }
    return {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      ...(credentials.SessionToken ? { sessionToken: credentials.SessionToken } : {}),
      ...(credentials.Expiration ? { expiration: credentials.Expiration } : {}),
    };
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
