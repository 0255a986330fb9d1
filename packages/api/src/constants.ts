export const GROUP = 'infrastructure.keymaster.dev';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The API group of Cluster API's AWS provider (CAPA): its identities are of the same kinds as ours. */
export const CAPA_GROUP = 'infrastructure.cluster.x-k8s.io';

/** A namespace label, ops': `keymaster.dev/adopt=cluster-api` has Keymaster follow its Cluster API clusters. */
export const ADOPT_LABEL = 'keymaster.dev/adopt';
export const ADOPT_LABEL_VALUE = 'cluster-api';

/** On a followed cluster's companion AWSCluster: the ClusterClass of its Cluster's topology. */
export const CLUSTER_CLASS_LABEL = 'keymaster.dev/cluster-class';

/** The identity kinds CAPA has (Keymaster's other kinds are its own). */
export const CAPA_IDENTITY_KINDS: readonly string[] = [
  'AWSClusterControllerIdentity',
  'AWSClusterRoleIdentity',
  'AWSClusterStaticIdentity',
];

/**
 * What `allowedNamespaces: {selector: {}}` of a CAPA identity means to Keymaster (`--capa-empty-selector`):
 * CAPA's code reads it as every namespace, Keymaster as none; `none` (the first, the default) refuses it.
 */
export const CAPA_EMPTY_SELECTOR_MODES = ['none', 'all-namespaces'] as const;
export type CapaEmptySelector = (typeof CAPA_EMPTY_SELECTOR_MODES)[number];

/** CAPA's namespace by default (`--capa-namespace`): where its static identities' Secrets are. */
export const DEFAULT_CAPA_NAMESPACE = 'capa-system';

export { IDENTITY_KIND_FACTS, IDENTITY_KINDS, type IdentityKindFacts } from './schema/identity-kinds.js';

/** The only valid name of the singletons AWSClusterControllerIdentity and AWSTagPolicy. */
export const SINGLETON_NAME = 'default';

/** Cluster API's pause convention: reconciliation stops while this annotation is present. */
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';

/** Ownership tags Cluster API providers put on a cluster's AWS resources. */
export const ownershipTagKeys = (clusterName: string): readonly string[] => [
  `sigs.k8s.io/cluster-api-provider-aws/cluster/${clusterName}`,
  `kubernetes.io/cluster/${clusterName}`,
];

/**
 * Tags whose value is the name of the cluster a resource belongs to: the AWS Load Balancer
 * Controller's, on the load balancers, target groups and security groups it creates in an EKS (or
 * any) cluster. Such a resource belongs to the cluster as an `owned` one does.
 */
export const CLUSTER_NAME_TAG_KEYS: readonly string[] = ['elbv2.k8s.aws/cluster'];

/** The least time between two renewals of one credential set (`keymaster run --min-renewal-interval`). */
export const DEFAULT_MIN_RENEWAL_INTERVAL_MS = 300_000;
