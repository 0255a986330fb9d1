import type { AWSServiceAccountIdentity } from '@keymaster/api';
import type { KindProvider } from './provider.js';
import { lastAssumed, tokenSessions, tokenWorkloadConfig } from './token-role.js';

/** Its token is always of its own namespace's ServiceAccount: the namespace is no field a writer chooses. */
const ownSessions = tokenSessions<AWSServiceAccountIdentity>((identity) => ({
  namespace: identity.metadata.namespace ?? '',
  name: identity.spec.serviceAccountName,
}));

/**
 * A tenant's own IAM role, assumed with sts:AssumeRoleWithWebIdentity (unsigned) with a token of a
 * ServiceAccount of the identity's namespace. The identity is namespaced and looked up in the asking
 * namespace only, so no other namespace can name it, and the role's trust policy (the tenant's, on
 * AWS) decides who assumes it: Keymaster adds no trust of its own.
 */
export const serviceAccountProvider: KindProvider<AWSServiceAccountIdentity> = {
  kind: 'AWSServiceAccountIdentity',
  callsSts: true,
  source: () => undefined,
  secrets: () => [],
  // The fields sent to STS and TokenRequest, and the namespace its token is of.
  credentialInputs: ({ identity }) => {
    const { credentialVending, resourceTags, ...assume } = identity.spec;
    return { ...assume, tokenNamespace: identity.metadata.namespace };
  },
  credentials: ownSessions.credentials,
  vending: { narrowed: ownSessions.narrowed, workloadConfig: tokenWorkloadConfig },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) =>
    `role ${identity.spec.roleARN} with a token of ServiceAccount ${identity.spec.serviceAccountName} in its own namespace`,
  warnings: () => [],
  status: lastAssumed,
};
