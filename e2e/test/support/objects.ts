import type {
  AWSCluster,
  AWSClusterControllerIdentity,
  AWSClusterRoleIdentitySpec,
  AWSClusterRoleIdentity,
  AWSClusterSpec,
  AWSClusterStaticIdentity,
  AWSTagPolicy,
  AllowedNamespaces,
  ResourceTag,
} from '@keymaster/api';
import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import type { AccessKey } from './aws-world.js';

/** The controller's namespace, where static identities' Secrets live. */
export const CONTROLLER_NAMESPACE = 'keymaster-system';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';

export type KubeObject =
  | V1Namespace
  | V1Secret
  | AWSCluster
  | AWSClusterControllerIdentity
  | AWSClusterStaticIdentity
  | AWSClusterRoleIdentity
  | AWSTagPolicy;

export const namespace = (name: string, labels: Record<string, string> = {}): V1Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

/** A static identity's Secret, in the controller's namespace. */
export const keysSecret = (name: string, key: AccessKey): V1Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: CONTROLLER_NAMESPACE },
  type: 'Opaque',
  stringData: { AccessKeyID: key.accessKeyId, SecretAccessKey: key.secretAccessKey },
});

export const controllerIdentity = (
  allowedNamespaces: AllowedNamespaces,
  resourceTags?: ResourceTag[],
): AWSClusterControllerIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterControllerIdentity',
  metadata: { name: 'default' },
  spec: { allowedNamespaces, ...(resourceTags ? { resourceTags } : {}) },
});

export const staticIdentity = (
  name: string,
  secretRef: string,
  allowedNamespaces: AllowedNamespaces,
  resourceTags?: ResourceTag[],
): AWSClusterStaticIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name },
  spec: { secretRef, allowedNamespaces, ...(resourceTags ? { resourceTags } : {}) },
});

export const roleIdentity = (name: string, spec: AWSClusterRoleIdentitySpec): AWSClusterRoleIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec,
});

export const tagPolicy = (resourceTags: ResourceTag[]): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags },
});

export const awsCluster = (namespace: string, name: string, spec: AWSClusterSpec): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace },
  spec,
});

export const staticRef = (name: string) => ({ kind: 'AWSClusterStaticIdentity', name }) as const;
export const roleRef = (name: string) => ({ kind: 'AWSClusterRoleIdentity', name }) as const;
