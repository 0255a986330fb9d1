import type { JsonObject } from '../util/json.js';

/**
 * The bootstrap ClusterRoleBindings of kube-apiserver that the emulator honours without storing
 * them: each gives the members of a group the rules of its ClusterRole.
 */
export const BOOTSTRAP_GRANTS: { group: string; rules: JsonObject[] }[] = [
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
];
