import { clusterRoleBindings, clusterRoles, roles } from '../resources/builtins/rbac.js';
import type { ResourceDef } from '../resources/types.js';
import type { JsonObject } from '../util/json.js';

/** Paths anyone may read (system:public-info-viewer), and those of discovery (system:discovery). */
const PUBLIC_INFO = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const DISCOVERY = ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', ...PUBLIC_INFO];

/** One bootstrap ClusterRoleBinding: the rules of its ClusterRole, for the members of a group or one user. */
export interface BootstrapGrant {
  group?: string;
  user?: string;
  /** How RBAC's reasons name the binding (`ClusterRoleBinding "x" of ClusterRole "x" to ...`), when they do. */
  source?: string;
  rules: JsonObject[];
}

/**
 * kube-controller-manager's controllers that the emulator plays act as these service accounts, with
 * the rules of their bootstrap `system:controller:NAME` ClusterRoles (so that a request made as one
 * of them, impersonated, is authorized as theirs is).
 */
function controllerGrant(controller: string, rules: JsonObject[]): BootstrapGrant {
  const role = `system:controller:${controller}`;
  return {
    user: `system:serviceaccount:kube-system:${controller}`,
    source: `ClusterRoleBinding "${role}" of ClusterRole "${role}" to ServiceAccount "${controller}/kube-system"`,
    rules,
  };
}

const EVENTS: JsonObject = {
  apiGroups: ['', 'events.k8s.io'],
  resources: ['events'],
  verbs: ['create', 'update', 'patch'],
};

/**
 * The bootstrap ClusterRoleBindings of kube-apiserver that the emulator honours without storing
 * them: each gives the members of a group (or one controller) the rules of its ClusterRole.
 */
export const BOOTSTRAP_GRANTS: BootstrapGrant[] = [
  // system:discovery and system:public-info-viewer: authenticated users read discovery and OpenAPI,
  // anonymous ones only health and version.
  { group: 'system:authenticated', rules: [{ nonResourceURLs: DISCOVERY, verbs: ['get'] }] },
  { group: 'system:unauthenticated', rules: [{ nonResourceURLs: PUBLIC_INFO, verbs: ['get'] }] },
  // system:basic-user: every authenticated user may ask who it is and what it may do.
  {
    group: 'system:authenticated',
    rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
    ],
  },
  // system:service-account-issuer-discovery: service accounts may read the issuer's OIDC documents.
  {
    group: 'system:serviceaccounts',
    rules: [
      {
        nonResourceURLs: [
          '/.well-known/openid-configuration',
          '/.well-known/openid-configuration/',
          '/openid/v1/jwks',
          '/openid/v1/jwks/',
        ],
        verbs: ['get'],
      },
    ],
  },
  controllerGrant('generic-garbage-collector', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'] },
    EVENTS,
  ]),
  controllerGrant('namespace-controller', [
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'delete'] },
    { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
    { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch', 'delete', 'deletecollection'] },
  ]),
];

const BOOTSTRAPPED = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

/**
 * The bootstrap RBAC objects the emulator stores: cluster-admin and its binding to system:masters,
 * and the roles aggregated servers bind their service accounts to (to review tokens and access, and
 * to read the front proxy's CA).
 */
export const BOOTSTRAP_OBJECTS: [ResourceDef, JsonObject][] = [
  [
    clusterRoles,
    {
      metadata: { name: 'cluster-admin', ...BOOTSTRAPPED },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
    },
  ],
  [
    clusterRoleBindings,
    {
      metadata: { name: 'cluster-admin', ...BOOTSTRAPPED },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }],
    },
  ],
  [
    clusterRoles,
    {
      metadata: { name: 'system:auth-delegator', ...BOOTSTRAPPED },
      rules: [
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      ],
    },
  ],
  [
    roles,
    {
      metadata: { name: 'extension-apiserver-authentication-reader', namespace: 'kube-system', ...BOOTSTRAPPED },
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['extension-apiserver-authentication'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    },
  ],
];
