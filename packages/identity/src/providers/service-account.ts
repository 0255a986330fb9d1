import type { AWSServiceAccountIdentity, SessionPolicy } from '@keymaster/api';
import { defaultSessionName } from '../session-name.js';
import type { ChainLink, CredentialContext, CredentialSource, KindProvider } from './provider.js';
import { assumeWithToken } from './web.js';

/** Its token is always of its own namespace's ServiceAccount: the namespace is no field a writer chooses. */
const ownToken = (
  { kind, name, identity }: ChainLink<AWSServiceAccountIdentity>,
  context: CredentialContext,
  session?: SessionPolicy,
): CredentialSource =>
  assumeWithToken(
    { kind, name },
    identity.spec,
    { namespace: identity.metadata.namespace ?? '', name: identity.spec.serviceAccountName },
    context,
    session,
  );

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
  credentials: (link, context) => ownToken(link, context),
  vending: {
    narrowed: (link, context, session) => ownToken(link, context, session),
    workloadConfig: ({ metadata, spec }) => ({
      roleArn: spec.roleARN,
      sessionName: spec.sessionName ?? defaultSessionName(metadata.name ?? ''),
    }),
  },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) =>
    `role ${identity.spec.roleARN} with a token of ServiceAccount ${identity.spec.serviceAccountName} in its own namespace`,
  warnings: () => [],
  status: (_identity, { renewedAt }) => (renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {}),
};
