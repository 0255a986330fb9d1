/** Request bodies and paths the sequences share. */

export const GROUP = 'infrastructure.keymaster.dev';
export const API = `${GROUP}/v1beta1`;

/** Paths in the sequence's namespace (`{ns}`) and of the cluster-scoped kinds. */
export const PATHS = {
  configMaps: '/api/v1/namespaces/{ns}/configmaps',
  secrets: '/api/v1/namespaces/{ns}/secrets',
  serviceAccounts: '/api/v1/namespaces/{ns}/serviceaccounts',
  services: '/api/v1/namespaces/{ns}/services',
  events: '/api/v1/namespaces/{ns}/events',
  newEvents: '/apis/events.k8s.io/v1/namespaces/{ns}/events',
  deployments: '/apis/apps/v1/namespaces/{ns}/deployments',
  leases: '/apis/coordination.k8s.io/v1/namespaces/{ns}/leases',
  roles: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles',
  roleBindings: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings',
  clusterRoles: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  clusterRoleBindings: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  namespaces: '/api/v1/namespaces',
  crds: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  clusters: `/apis/${API}/namespaces/{ns}/awsclusters`,
  allClusters: `/apis/${API}/awsclusters`,
  controllerIdentities: `/apis/${API}/awsclustercontrolleridentities`,
  staticIdentities: `/apis/${API}/awsclusterstaticidentities`,
  roleIdentities: `/apis/${API}/awsclusterroleidentities`,
  tagPolicies: `/apis/${API}/awstagpolicies`,
};

type Fields = Record<string, unknown>;

export const configMap = (name: string, data: Fields = { mode: 'fast' }, metadata: Fields = {}): Fields => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...metadata },
  data,
});

export const secret = (name: string, fields: Fields = { stringData: { password: 's3cret' } }): Fields => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  ...fields,
});

export const cluster = (name: string, spec: Fields = { region: 'eu-west-1' }, metadata: Fields = {}): Fields => ({
  apiVersion: API,
  kind: 'AWSCluster',
  metadata: { name, ...metadata },
  spec,
});

export const staticIdentity = (name: string, spec: Fields = {}): Fields => ({
  apiVersion: API,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name },
  spec: { secretRef: `${name}-credentials`, allowedNamespaces: {}, ...spec },
});

export const roleIdentity = (name: string, spec: Fields = {}): Fields => ({
  apiVersion: API,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: { roleARN: 'arn:aws:iam::123456789012:role/keymaster', allowedNamespaces: {}, ...spec },
});

export const controllerIdentity = (name = 'default', spec: Fields = {}): Fields => ({
  apiVersion: API,
  kind: 'AWSClusterControllerIdentity',
  metadata: { name },
  spec: { allowedNamespaces: {}, ...spec },
});

export const tagPolicy = (name = 'default', spec: Fields = {}): Fields => ({
  apiVersion: API,
  kind: 'AWSTagPolicy',
  metadata: { name },
  spec,
});

export const deployment = (name: string, spec: Fields = {}): Fields => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    },
    ...spec,
  },
});

export const role = (name: string, rules: Fields[]): Fields => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name },
  rules,
});

export const clusterRole = (name: string, rules: Fields[]): Fields => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name },
  rules,
});

/** A ClusterRoleBinding of a ClusterRole of the same name to one subject (a User or a Group). */
export const clusterRoleBinding = (name: string, subject: { kind: 'User' | 'Group'; name: string }): Fields => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
});

/** A RoleBinding of the tenant (by user name) to a Role, or to a ClusterRole with `clusterRole`. */
export const tenantBinding = (name: string, roleName: string, kind: 'Role' | 'ClusterRole' = 'Role'): Fields => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fidelity-tenant' }],
});
