import {
  API_VERSION,
  ownershipTagKeys,
  type AWSCluster,
  type AWSClusterRoleIdentity,
  type AWSClusterStaticIdentity,
  type AWSTagPolicy,
  type ResourceTag,
} from '@keymaster/api';

export const CLUSTER = 'analytics-dev';

export const policy = (resourceTags: ResourceTag[]): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags },
});

export const roleIdentity = (name: string, resourceTags: ResourceTag[]): AWSClusterRoleIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: { roleARN: `arn:aws:iam::333333333333:role/${name}`, resourceTags },
});

export const staticIdentity = (name: string, resourceTags: ResourceTag[]): AWSClusterStaticIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name },
  spec: { secretRef: `${name}-keys`, resourceTags },
});

export const cluster = (additionalTags: Record<string, string>): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: CLUSTER, namespace: 'tenant-b' },
  spec: { region: 'eu-west-1', additionalTags },
});

/** The object names provenance uses for the fixtures above. */
export const POLICY = 'AWSTagPolicy/default';
export const CLUSTER_OBJECT = `AWSCluster tenant-b/${CLUSTER}`;

/** The ownership tags discovery finds on a resource of the cluster. */
export const owned = (value: 'owned' | 'shared' = 'owned', clusterName = CLUSTER): Record<string, string> =>
  Object.fromEntries(ownershipTagKeys(clusterName).map((key) => [key, value]));

export const instanceArn = (id: string, region = 'eu-west-1') => `arn:aws:ec2:${region}:111122223333:instance/${id}`;
