import {
  CredentialsAvailableReason,
  SINGLETON_NAME,
  type AWSClusterControllerIdentity,
  type ConditionUpdate,
  type IdentityReference,
} from '@keymaster/api';
import { SOURCE_DESCRIPTIONS, type ControllerCredentialsCheck } from '../controller-credentials.js';
import { ControllerCredentialsError } from '../errors.js';
import type { KindProvider } from './provider.js';

/** The identity of chains that name no other: the controller's own credentials. */
export const CONTROLLER_IDENTITY: IdentityReference = { kind: 'AWSClusterControllerIdentity', name: SINGLETON_NAME };

/** CredentialsAvailable of AWSClusterControllerIdentity/default: the source found at start, or why none was. */
export function credentialsAvailable(check: ControllerCredentialsCheck): ConditionUpdate {
  if (check.source === 'none')
    return {
      type: 'CredentialsAvailable',
      status: 'False',
      reason: CredentialsAvailableReason.NoCredentials,
      message: `The controller found no AWS credentials of its own (${check.error ?? 'no source of the default chain'}): clusters whose chain starts from this identity fail. Give the controller's pod IRSA (eks.amazonaws.com/role-arn on its ServiceAccount), an EKS Pod Identity association, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then restart it`,
    };
  return {
    type: 'CredentialsAvailable',
    status: 'True',
    reason: CredentialsAvailableReason.CredentialsFound,
    message: `The controller's own credentials come from ${SOURCE_DESCRIPTIONS[check.source]} (source ${check.source})`,
  };
}

/** The controller's own credentials (by default the SDK's default chain). */
export const controllerProvider: KindProvider<AWSClusterControllerIdentity> = {
  kind: 'AWSClusterControllerIdentity',
  // The SDK's default chain obtains them (IRSA: one call of its own an hour), for every namespace at once.
  callsSts: false,
  source: () => undefined,
  secrets: () => [],
  credentialInputs: () => ({}),
  // A failure to load them is named as the controller's, so that no tenant is told to check keys it does not have.
  credentials:
    (_link, { controllerCredentials }) =>
    async () => {
      try {
        return await controllerCredentials();
      } catch (error) {
        throw new ControllerCredentialsError((error as Error).message || (error as Error).name, error);
      }
    },
  linkDetails: () => ({}),
  actsWith: () => "the controller's own credentials",
  warnings: () => [],
  status: (identity, { controllerCredentials }) =>
    identity.metadata.name === SINGLETON_NAME && controllerCredentials
      ? { conditions: [credentialsAvailable(controllerCredentials)] }
      : {},
};
