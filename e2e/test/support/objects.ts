import type {
  AWSAccountBinding,
  AWSCluster,
  AWSClusterLedger,
  AWSClusterControllerIdentity,
  AWSClusterRoleIdentitySpec,
  AWSClusterRoleIdentity,
  AWSClusterSpec,
  AWSClusterStaticIdentity,
  AWSClusterWebIdentity,
  AWSClusterWebIdentitySpec,
  AWSCredentialsRequest,
  AWSCredentialsRequestSpec,
  AWSServiceAccountIdentity,
  AWSServiceAccountIdentitySpec,
  AWSTagPolicy,
  AllowedNamespaces,
  ResourceTag,
} from '@keymaster/api';
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Namespace,
  V1ResourceQuota,
  V1RoleBinding,
  V1Secret,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import type { AccessKey } from './aws-world.js';

/** The controller's namespace, where static identities' Secrets live. */
export const CONTROLLER_NAMESPACE = 'keymaster-system';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';

export type KubeObject =
  | V1Namespace
  | V1Secret
  | V1ServiceAccount
  | V1ClusterRole
  | V1ClusterRoleBinding
  | V1RoleBinding
  | V1ResourceQuota
  | AWSCluster
  | AWSClusterControllerIdentity
  | AWSClusterStaticIdentity
  | AWSClusterRoleIdentity
  | AWSClusterWebIdentity
  | AWSServiceAccountIdentity
  | AWSCredentialsRequest
  | AWSClusterLedger
  | AWSTagPolicy
  | AWSAccountBinding;

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

/** A role identity's externalID, in a Secret of the controller's namespace (`externalIDSecretRef`, key `externalID`). */
export const externalIDSecret = (name: string, externalID: string): V1Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: CONTROLLER_NAMESPACE },
  type: 'Opaque',
  stringData: { externalID },
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

export const webIdentity = (name: string, spec: AWSClusterWebIdentitySpec): AWSClusterWebIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterWebIdentity',
  metadata: { name },
  spec,
});

/** A tenant's own identity, in its namespace. */
export const serviceAccountIdentity = (
  namespace: string,
  name: string,
  spec: AWSServiceAccountIdentitySpec,
): AWSServiceAccountIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSServiceAccountIdentity',
  metadata: { name, namespace },
  spec,
});

export const serviceAccount = (namespace: string, name: string): V1ServiceAccount => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace },
});

/**
 * The API server's OIDC discovery documents readable without credentials, as IAM needs them to fetch
 * the issuer's keys (kube-apiserver grants them to ServiceAccounts only, by default). A role of its
 * own: the kube-emulator does not store kube-apiserver's system:service-account-issuer-discovery.
 */
export const publicIssuerDiscovery = (): [V1ClusterRole, V1ClusterRoleBinding] => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'issuer-discovery-public' },
    rules: [{ nonResourceURLs: ['/.well-known/openid-configuration', '/openid/v1/jwks'], verbs: ['get'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'issuer-discovery-public' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'issuer-discovery-public' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' }],
  },
];

export const tagPolicy = (resourceTags: ResourceTag[]): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags },
});

/** An AWSTagPolicy other than default: the tags of the clusters its selectors pick (docs/tagging.md). */
export const selectedTagPolicy = (
  name: string,
  selectors: Pick<AWSTagPolicy['spec'], 'clusterSelector' | 'namespaceSelector' | 'precedence'>,
  resourceTags: ResourceTag[],
): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name },
  spec: { ...selectors, resourceTags },
});

/** The platform's declaration of which tenants' identities may act in an AWS account (named after it). */
export const accountBinding = (accountId: string, tenants: string[]): AWSAccountBinding => ({
  apiVersion: API_VERSION,
  kind: 'AWSAccountBinding',
  metadata: { name: accountId },
  spec: { tenants },
});

export const awsCluster = (namespace: string, name: string, spec: AWSClusterSpec): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace },
  spec,
});

export const credentialsRequest = (
  namespace: string,
  name: string,
  spec: AWSCredentialsRequestSpec,
): AWSCredentialsRequest => ({
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name, namespace },
  spec,
});

export const staticRef = (name: string) => ({ kind: 'AWSClusterStaticIdentity', name }) as const;
export const roleRef = (name: string) => ({ kind: 'AWSClusterRoleIdentity', name }) as const;
export const webRef = (name: string) => ({ kind: 'AWSClusterWebIdentity', name }) as const;
export const serviceAccountRef = (name: string) => ({ kind: 'AWSServiceAccountIdentity', name }) as const;
