import type { Credentials } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity } from '@smithy/types';
import { AwsCredentialError, type CredentialAction, type LinkName } from '../errors.js';

/** The SDK's credentials out of an STS answer that makes a session; an answer without them is an error. */
export function sessionCredentials(
  link: LinkName,
  action: CredentialAction,
  credentials: Credentials | undefined,
): AwsCredentialIdentity {
  if (!credentials?.AccessKeyId || !credentials.SecretAccessKey) {
    throw new AwsCredentialError(
      link,
      action,
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
}
