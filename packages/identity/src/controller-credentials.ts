import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** Where the controller's own credentials come from: a provider of the SDK's default chain, or none. */
export type ControllerCredentialSource =
  'environment' | 'web-identity' | 'container' | 'profile' | 'instance-metadata' | 'provided' | 'none';

export interface ControllerCredentialsCheck {
  source: ControllerCredentialSource;
  /** Why none was found: the SDK's message (it names no secret). */
  error?: string;
}

/** What each source is, for people: a log line, a condition message. */
export const SOURCE_DESCRIPTIONS: Record<ControllerCredentialSource, string> = {
  environment: 'static keys in the environment (AWS_ACCESS_KEY_ID)',
  'web-identity': 'a web identity token (IRSA: AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE)',
  container: 'the container credentials endpoint (EKS Pod Identity or ECS)',
  profile: 'a profile of the shared config files (AWS_PROFILE)',
  'instance-metadata': "the node's instance profile (IMDS)",
  provided: 'credentials given to the controller in-process (demo, tests)',
  none: 'no source of the default chain',
};

/** The SDK's default chain, the controller's credentials unless given others. */
export const defaultControllerCredentials = (): AwsCredentialIdentityProvider => fromNodeProviderChain();

/**
 * The source that supplied `credentials`, from the features the SDK's providers mark them with
 * (`$source`); the container and instance metadata providers of the chain mark nothing.
 */
export function credentialSource(
  credentials: AwsCredentialIdentity,
  defaultChain: boolean,
): ControllerCredentialSource {
  const features = Object.keys((credentials as { $source?: Record<string, string> }).$source ?? {});
  if (features.some((feature) => feature.includes('WEB_ID'))) return 'web-identity';
  if (features.includes('CREDENTIALS_ENV_VARS')) return 'environment';
  if (features.includes('CREDENTIALS_HTTP')) return 'container';
  if (features.some((feature) => /PROFILE|SSO|PROCESS|LOGIN/.test(feature))) return 'profile';
  if (!defaultChain) return 'provided';
  const containerEndpoint =
    process.env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] ?? process.env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'];
  return containerEndpoint ? 'container' : 'instance-metadata';
}

/** Asks the controller's provider for credentials once and says which source answered, or why none did. */
export async function checkControllerCredentials(
  provider: AwsCredentialIdentityProvider,
  defaultChain: boolean,
): Promise<ControllerCredentialsCheck> {
  try {
    return { source: credentialSource(await provider(), defaultChain) };
  } catch (error) {
    return { source: 'none', error: (error as Error).message || (error as Error).name };
  }
}
