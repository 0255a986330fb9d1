import { API_VERSION, type AWSCredentialsRequest } from '@keymaster/api';

/** Tenant B's request for its reports job, as the credentials tests start from. */
export const REQUEST: AWSCredentialsRequest = {
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name: 'reports', namespace: 'tenant-b', uid: 'uid-1' },
  spec: {
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b-workloads' },
    statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
    secretRef: { name: 'reports-aws' },
  },
};
