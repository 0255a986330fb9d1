import type { AwsCredentialIdentity } from '@smithy/types';
import { SecretInvalidError, type LinkName, type SecretUse } from './errors.js';

// Cluster API's key names first, then the cloud-credential-operator's.
const FORMATS = [
  { accessKeyId: 'AccessKeyID', secretAccessKey: 'SecretAccessKey', sessionToken: 'SessionToken' },
  { accessKeyId: 'aws_access_key_id', secretAccessKey: 'aws_secret_access_key', sessionToken: 'aws_session_token' },
] as const;

const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

/** A static identity's Secret, for messages. */
export const STATIC_KEYS: SecretUse = {
  field: 'spec.secretRef',
  holds:
    'AccessKeyID and SecretAccessKey (and optionally SessionToken), or aws_access_key_id and aws_secret_access_key (and optionally aws_session_token)',
};

/**
 * Reads static keys from a Secret's (base64) data. Errors name the keys at fault, never a value.
 */
export function credentialsFromSecret(
  link: LinkName,
  secretName: string,
  data: Record<string, string>,
): AwsCredentialIdentity {
  const decoded = (key: string) =>
    data[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8').trim();
  // The format whose access key ID is present, else the one with more of its keys present.
  const format =
    FORMATS.find((candidate) => data[candidate.accessKeyId] !== undefined) ??
    FORMATS.find((candidate) => data[candidate.secretAccessKey] !== undefined) ??
    FORMATS[0];
  const accessKeyId = decoded(format.accessKeyId);
  const secretAccessKey = decoded(format.secretAccessKey);
  const sessionToken = decoded(format.sessionToken);
  const problems: string[] = [];
  if (!accessKeyId) problems.push(`key ${format.accessKeyId} is missing or empty`);
  else if (!ACCESS_KEY_ID.test(accessKeyId))
    problems.push(`key ${format.accessKeyId} does not hold an access key ID (16-128 capital letters and digits)`);
  if (!secretAccessKey) problems.push(`key ${format.secretAccessKey} is missing or empty`);
  if (problems.length > 0 || !accessKeyId || !secretAccessKey)
    throw new SecretInvalidError(link, secretName, STATIC_KEYS, problems);
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}
