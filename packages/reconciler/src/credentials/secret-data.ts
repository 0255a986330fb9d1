import type { AWSCredentialsRequestSpec } from '@keymaster/api';
import type { AwsCredentialIdentity } from '@smithy/types';

export type SecretFormat = NonNullable<AWSCredentialsRequestSpec['format']>;

/** Where pods of WebIdentity mode mount their projected ServiceAccount token (docs/credentials.md shows the pod spec). */
export const WEB_IDENTITY_TOKEN_FILE = '/var/run/secrets/keymaster.dev/serviceaccount/token';

/** What WebIdentity mode writes: where the role is and where the pod's token is; no secret material. */
export interface WebIdentityConfig {
  roleArn: string;
  sessionName: string;
}

/** An INI profile `[default]` with its keys, as AWS's shared credentials and config files hold them. */
const profile = (entries: Record<string, string | undefined>): string =>
  ['[default]', ...Object.entries(entries).flatMap(([key, value]) => (value ? [`${key} = ${value}`] : []))].join('\n') +
  '\n';

/** The Secret's data (plain text; the writer encodes it) for session credentials in a format. */
export function sessionSecretData(format: SecretFormat, credentials: AwsCredentialIdentity): Record<string, string> {
  const { accessKeyId, secretAccessKey, sessionToken } = credentials;
  const file = profile({
    aws_access_key_id: accessKeyId,
    aws_secret_access_key: secretAccessKey,
    aws_session_token: sessionToken,
  });
  switch (format) {
    case 'Environment':
      return {
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: secretAccessKey,
        ...(sessionToken ? { AWS_SESSION_TOKEN: sessionToken } : {}),
      };
    case 'CredentialsFile':
      return { credentials: file };
    case 'CloudCredentialOperator':
      // CCO's keys, plus the session token its long-lived keys never needed, plus its `credentials` file.
      return {
        aws_access_key_id: accessKeyId,
        aws_secret_access_key: secretAccessKey,
        ...(sessionToken ? { aws_session_token: sessionToken } : {}),
        credentials: file,
      };
  }
}

/** The Secret's data for WebIdentity mode: the role and the token path, for the SDKs' web identity provider. */
export function webIdentitySecretData(format: SecretFormat, config: WebIdentityConfig): Record<string, string> {
  const file = profile({
    role_arn: config.roleArn,
    web_identity_token_file: WEB_IDENTITY_TOKEN_FILE,
    role_session_name: config.sessionName,
  });
  switch (format) {
    case 'Environment':
      return {
        AWS_ROLE_ARN: config.roleArn,
        AWS_WEB_IDENTITY_TOKEN_FILE: WEB_IDENTITY_TOKEN_FILE,
        AWS_ROLE_SESSION_NAME: config.sessionName,
      };
    case 'CredentialsFile':
      return { config: file };
    case 'CloudCredentialOperator':
      // CCO's STS mode: one `credentials` key holding role_arn and web_identity_token_file.
      return { credentials: file };
  }
}
