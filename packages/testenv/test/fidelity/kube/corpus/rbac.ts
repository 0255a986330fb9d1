import type { Sequence, Step } from '../sequence.js';
import { cluster, clusterRole, clusterRoleBinding, configMap, GROUP, PATHS, role, tenantBinding } from './objects.js';

const { clusters, configMaps } = PATHS;

const REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

/**
 * The tenant asks whether it may do something until kube-apiserver says yes: its authorizer reads
 * roles and bindings from an informer, so a grant takes effect a moment after it is stored (the
 * emulator's at once). `kubectl auth can-i` in a loop, as a client waits for a grant.
 */
const untilAllowed = (attributes: Record<string, string>): Step => ({
  request: `POST ${REVIEWS}`,
  as: 'tenant',
  body: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: attributes },
  },
  until: ({ body }) => (body as { status?: { allowed?: boolean } }).status?.allowed === true,
  pick: (body) => (body as { status: { allowed: unknown } }).status.allowed,
});

/** A SelfSubjectReview (`kubectl auth whoami`), as the tenant or the admin with impersonation headers. */
const whoami = (headers: Record<string, string>, as: 'tenant' | 'admin' = 'tenant'): Step => ({
  request: 'POST /apis/authentication.k8s.io/v1/selfsubjectreviews',
  as,
  headers,
  body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
});

/** A Role with `rules` in the sequence's namespace, bound to the tenant (steps 0 and 1). */
const grant = (rules: Record<string, unknown>[]): Step[] => [
  { request: `POST ${PATHS.roles}`, body: role('granted', rules) },
  { request: `POST ${PATHS.roleBindings}`, body: tenantBinding('tenant-granted', 'granted') },
];

export const rbac: Sequence[] = [
  {
    name: 'RBAC: a user with no role is refused everything',
    area: 'rbac',
    steps: [
      { request: `GET ${configMaps}`, as: 'tenant' },
      { request: `GET ${configMaps}/missing`, as: 'tenant' },
      { request: `POST ${clusters}`, as: 'tenant', body: cluster('x') },
      { request: 'GET /api/v1/namespaces', as: 'tenant' },
      { request: 'GET /api/v1/namespaces/{ns}', as: 'tenant' },
      { request: `DELETE ${clusters}`, as: 'tenant' },
      { request: `GET ${PATHS.tagPolicies}/default`, as: 'tenant' },
      { request: `PATCH ${clusters}/x/status`, as: 'tenant', type: 'merge', body: {} },
    ],
  },
  {
    name: 'RBAC: a Role grants reads in its namespace only',
    area: 'rbac',
    steps: [
      ...grant([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]),
      { request: `POST ${configMaps}`, body: configMap('readable') },
      { request: `GET ${configMaps}`, as: 'tenant', until: 200 },
      { request: `GET ${configMaps}/readable`, as: 'tenant' },
      { request: `POST ${configMaps}`, as: 'tenant', body: configMap('written') },
      { request: 'GET /api/v1/namespaces/default/configmaps', as: 'tenant' },
      { request: 'GET /api/v1/configmaps', as: 'tenant' },
      { request: `GET ${configMaps}?watch=true&timeoutSeconds=1`, as: 'tenant', watch: 1 },
    ],
  },
  {
    name: 'RBAC: resourceNames limit a grant to named objects',
    area: 'rbac',
    steps: [
      ...grant([
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['public'], verbs: ['get', 'update', 'patch'] },
      ]),
      { request: `POST ${configMaps}`, body: configMap('public') },
      { request: `POST ${configMaps}`, body: configMap('private') },
      { request: `GET ${configMaps}/public`, as: 'tenant', until: 200 },
      { request: `GET ${configMaps}/private`, as: 'tenant' },
      { request: `GET ${configMaps}`, as: 'tenant' },
      { request: `PATCH ${configMaps}/public`, as: 'tenant', type: 'merge', body: { data: { mode: 'tenant' } } },
      { request: `DELETE ${configMaps}/public`, as: 'tenant' },
    ],
  },
  {
    name: 'RBAC: custom resources, and their status as a separate grant',
    area: 'rbac',
    steps: [
      ...grant([{ apiGroups: ['infrastructure.keymaster.dev'], resources: ['awsclusters'], verbs: ['*'] }]),
      { request: `POST ${clusters}`, as: 'tenant', body: cluster('mine'), until: 201 },
      { request: `PATCH ${clusters}/mine`, as: 'tenant', type: 'merge', body: { spec: { region: 'us-east-1' } } },
      {
        request: `PATCH ${clusters}/mine/status`,
        as: 'tenant',
        type: 'merge',
        body: { status: { accountID: '123456789012' } },
      },
      { request: `GET ${clusters}/mine/status`, as: 'tenant' },
      { request: `DELETE ${clusters}/mine`, as: 'tenant' },
    ],
  },
  {
    name: 'RBAC: */status and wildcard groups',
    area: 'rbac',
    steps: [
      ...grant([{ apiGroups: ['*'], resources: ['*/status'], verbs: ['get', 'patch'] }]),
      { request: `POST ${clusters}`, body: cluster('st') },
      { request: `GET ${clusters}/st/status`, as: 'tenant', until: 200 },
      {
        request: `PATCH ${clusters}/st/status`,
        as: 'tenant',
        type: 'merge',
        body: { status: { accountID: '123456789012' } },
      },
      { request: `GET ${clusters}/st`, as: 'tenant' },
    ],
  },
  {
    name: 'RBAC: a ClusterRole bound in one namespace',
    area: 'rbac',
    steps: [
      {
        request: `POST ${PATHS.clusterRoles}`,
        body: clusterRole('fidelity-cluster-reader', [
          { apiGroups: ['infrastructure.keymaster.dev'], resources: ['awsclusters'], verbs: ['get', 'list'] },
        ]),
      },
      {
        request: `POST ${PATHS.roleBindings}`,
        body: tenantBinding('tenant-reads', 'fidelity-cluster-reader', 'ClusterRole'),
      },
      untilAllowed({ namespace: '{ns}', verb: 'list', group: GROUP, resource: 'awsclusters' }),
      { request: `GET ${clusters}`, as: 'tenant' },
      { request: `GET ${PATHS.allClusters}`, as: 'tenant' },
      { request: `GET /apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters`, as: 'tenant' },
    ],
    cleanup: [`${PATHS.clusterRoles}/fidelity-cluster-reader`],
  },
  {
    name: 'RBAC: a ClusterRoleBinding to a group grants cluster-scoped kinds',
    area: 'rbac',
    steps: [
      {
        request: `POST ${PATHS.clusterRoles}`,
        body: clusterRole('fidelity-identity-reader', [
          {
            apiGroups: ['infrastructure.keymaster.dev'],
            resources: ['awsclusterstaticidentities', 'awstagpolicies'],
            verbs: ['list'],
          },
        ]),
      },
      {
        request: `POST ${PATHS.clusterRoleBindings}`,
        body: clusterRoleBinding('fidelity-identity-reader', { kind: 'Group', name: 'fidelity-tenants' }),
      },
      {
        request: `GET ${PATHS.tagPolicies}`,
        as: 'tenant',
        until: 200,
        pick: (body) => (body as { kind: unknown }).kind,
      },
      { request: `GET ${PATHS.tagPolicies}/default`, as: 'tenant' },
      { request: `GET ${PATHS.roleIdentities}`, as: 'tenant' },
    ],
    cleanup: [
      `${PATHS.clusterRoleBindings}/fidelity-identity-reader`,
      `${PATHS.clusterRoles}/fidelity-identity-reader`,
    ],
  },
  {
    name: 'RBAC: a binding to a ServiceAccount does not grant the user',
    area: 'rbac',
    steps: [
      {
        request: `POST ${PATHS.roles}`,
        body: role('sa-role', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]),
      },
      {
        request: `POST ${PATHS.roleBindings}`,
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'sa-binding' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'sa-role' },
          subjects: [{ kind: 'ServiceAccount', name: 'fidelity-tenant', namespace: '{ns}' }],
        },
      },
      { request: `GET ${configMaps}`, as: 'tenant' },
    ],
  },
  {
    name: 'RBAC: a binding to a missing Role grants nothing',
    area: 'rbac',
    steps: [
      { request: `POST ${PATHS.roleBindings}`, body: tenantBinding('dangling', 'nonexistent') },
      // The refusal names the missing Role once kube-apiserver's authorizer has seen the binding.
      { request: `GET ${configMaps}`, as: 'tenant', until: ({ body }) => JSON.stringify(body).includes('not found') },
    ],
  },
  {
    name: 'RBAC: requests without a token or with a wrong one',
    area: 'rbac',
    steps: [
      { request: `GET ${configMaps}`, as: 'anonymous' },
      { request: 'GET /version', as: 'anonymous', pick: (body) => Object.keys(body as object).sort() },
      { request: 'GET /healthz', as: 'anonymous' },
      { request: 'GET /api', as: 'anonymous' },
    ],
  },
  {
    name: 'RBAC: discovery is open to every authenticated user',
    area: 'rbac',
    steps: [
      { request: 'GET /api', as: 'tenant', pick: (body) => (body as { versions: unknown }).versions },
      {
        request: 'GET /apis/infrastructure.keymaster.dev/v1beta1',
        as: 'tenant',
        pick: (body) => (body as { kind: unknown }).kind,
      },
      { request: 'GET /version', as: 'tenant', pick: (body) => (body as { major: unknown }).major },
    ],
  },
  {
    name: 'RBAC: a Role cannot grant more than its author holds',
    area: 'rbac',
    steps: [
      ...grant([
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get'] },
      ]),
      untilAllowed({ namespace: '{ns}', verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings' }),
      {
        request: `POST ${PATHS.roles}`,
        as: 'tenant',
        body: role('escalating', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
      },
      {
        request: `POST ${PATHS.roles}`,
        as: 'tenant',
        body: role('modest', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['get'] }]),
      },
      {
        request: `POST ${PATHS.roleBindings}`,
        as: 'tenant',
        body: tenantBinding('self-admin', 'cluster-admin', 'ClusterRole'),
      },
    ],
  },
  {
    name: 'RBAC: SelfSubjectAccessReview (kubectl auth can-i)',
    area: 'rbac',
    steps: [
      ...grant([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
      untilAllowed({ namespace: '{ns}', verb: 'get', resource: 'configmaps' }),
      {
        request: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        as: 'tenant',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace: '{ns}', verb: 'get', resource: 'configmaps' } },
        },
        pick: (body) => (body as { status: unknown }).status,
      },
      {
        request: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        as: 'tenant',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace: '{ns}', verb: 'delete', resource: 'configmaps' } },
        },
        pick: (body) => (body as { status: unknown }).status,
      },
    ],
  },
  {
    name: 'RBAC: the built-in cluster-admin ClusterRole',
    area: 'rbac',
    steps: [
      { request: `GET ${PATHS.clusterRoles}/cluster-admin`, pick: (body) => (body as { rules: unknown }).rules },
      { request: `POST ${PATHS.roleBindings}`, body: tenantBinding('tenant-admin', 'cluster-admin', 'ClusterRole') },
      { request: `POST ${configMaps}`, as: 'tenant', body: configMap('by-tenant'), until: 201 },
      { request: 'GET /api/v1/namespaces/default/configmaps', as: 'tenant' },
    ],
  },
  {
    name: 'RBAC: impersonation without the right to impersonate',
    area: 'rbac',
    steps: [
      whoami({ 'Impersonate-User': 'someone' }),
      whoami({ 'Impersonate-User': 'system:serviceaccount:{ns}:robot' }),
      { request: `GET ${configMaps}`, as: 'tenant', headers: { 'Impersonate-User': 'someone' } },
      whoami({ 'Impersonate-Group': 'system:masters' }),
      whoami({ 'Impersonate-User': 'bob', 'Impersonate-Group': '{ns}-team' }, 'admin'),
      whoami({ 'Impersonate-User': 'system:serviceaccount:{ns}:robot' }, 'admin'),
      whoami(
        {
          'Impersonate-User': 'bob',
          'Impersonate-Uid': 'bob-uid',
          'Impersonate-Extra-Scopes': 'view',
          'Impersonate-Extra-Acme.com%2Fproject': 'apollo',
        },
        'admin',
      ),
      whoami({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:unauthenticated' }, 'admin'),
    ],
  },
  {
    name: 'RBAC: impersonation as far as the impersonate rules reach',
    area: 'rbac',
    steps: [
      {
        request: `POST ${PATHS.clusterRoles}`,
        body: clusterRole('{ns}-impersonator', [
          { apiGroups: [''], resources: ['users'], resourceNames: ['{ns}-bob'], verbs: ['impersonate'] },
          { apiGroups: [''], resources: ['groups'], resourceNames: ['{ns}-team'], verbs: ['impersonate'] },
          { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'] },
        ]),
      },
      {
        request: `POST ${PATHS.clusterRoleBindings}`,
        body: clusterRoleBinding('{ns}-impersonator', { kind: 'User', name: 'fidelity-tenant' }),
      },
      untilAllowed({ verb: 'impersonate', resource: 'users', name: '{ns}-bob' }),
      whoami({ 'Impersonate-User': '{ns}-bob' }),
      whoami({ 'Impersonate-User': '{ns}-alice' }),
      whoami({ 'Impersonate-User': '{ns}-bob', 'Impersonate-Group': '{ns}-team' }),
      whoami({ 'Impersonate-User': '{ns}-bob', 'Impersonate-Group': 'system:masters' }),
      whoami({ 'Impersonate-User': '{ns}-bob', 'Impersonate-Extra-Scopes': 'view' }),
      whoami({ 'Impersonate-User': '{ns}-bob', 'Impersonate-Extra-Other': 'view' }),
      whoami({ 'Impersonate-User': '{ns}-bob', 'Impersonate-Uid': 'bob-uid' }),
      { request: `GET ${configMaps}`, as: 'tenant', headers: { 'Impersonate-User': '{ns}-bob' } },
    ],
    cleanup: [`${PATHS.clusterRoleBindings}/{ns}-impersonator`, `${PATHS.clusterRoles}/{ns}-impersonator`],
  },
];
