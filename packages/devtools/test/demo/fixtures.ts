import type { AWSCluster, AWSClusterStatus, Condition } from '@keymaster/api';

const condition = (type: string, status: Condition['status'], reason: string, message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

/** An AWSCluster as the API server returns it, with the status a reconcile leaves. */
export function awsCluster(
  namespace: string,
  name: string,
  status?: AWSClusterStatus,
  identityRef: AWSCluster['spec']['identityRef'] = { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
): AWSCluster {
  return {
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSCluster',
    metadata: { namespace, name, generation: 1 },
    spec: { region: 'eu-west-1', identityRef },
    ...(status ? { status } : {}),
  };
}

export const readyStatus: AWSClusterStatus = {
  observedGeneration: 1,
  accountID: '333333333333',
  identityChain: [
    { kind: 'AWSClusterRoleIdentity', name: 'tenant-b', roleARN: 'arn:aws:iam::333333333333:role/tenant-b-admin' },
    { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub', roleARN: 'arn:aws:iam::111111111111:role/keymaster-hub' },
    { kind: 'AWSClusterControllerIdentity', name: 'default' },
  ],
  conditions: [
    condition('PrincipalUsageAllowed', 'True', 'PrincipalUsageAllowed'),
    condition('PrincipalCredentialRetrieved', 'True', 'PrincipalCredentialRetrieved'),
    condition('TagsInSync', 'True', 'TagsInSync'),
    condition('Ready', 'True', 'Ready', 'Credentials resolved and tags in sync'),
  ],
  tagging: {
    resourcesDiscovered: 3,
    resourcesInSync: 3,
    resourcesDrifted: 0,
    conflicts: [
      {
        key: 'tenant',
        winner: {
          layer: 'Account',
          object: 'AWSClusterRoleIdentity/tenant-b',
          value: 'tenant-b',
          overridePolicy: 'Deny',
        },
        loser: { layer: 'Cluster', object: 'AWSCluster tenant-b/analytics-dev', value: 'analytics' },
      },
    ],
  },
};

const REFUSAL = 'namespace "tenant-c" may not use AWSClusterRoleIdentity/tenant-b';

export const refusedStatus: AWSClusterStatus = {
  observedGeneration: 1,
  conditions: [
    condition('PrincipalUsageAllowed', 'False', 'PrincipalUsageUnauthorized', REFUSAL),
    condition('PrincipalCredentialRetrieved', 'Unknown', 'NotAttempted'),
    condition('TagsInSync', 'Unknown', 'CredentialsUnavailable'),
    condition('Ready', 'False', 'PrincipalUsageUnauthorized', REFUSAL),
  ],
};

export const failingStatus: AWSClusterStatus = {
  observedGeneration: 1,
  conditions: [
    condition('PrincipalUsageAllowed', 'True', 'PrincipalUsageAllowed'),
    condition('PrincipalCredentialRetrieved', 'False', 'AssumeRoleFailed', 'AccessDenied: not authorized'),
    condition('Ready', 'False', 'AssumeRoleFailed', 'AccessDenied: not authorized'),
  ],
};
