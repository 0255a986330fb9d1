import type { AWSClusterWebIdentity } from '@keymaster/api';
import { ControllerNamespaceTokenNotVendableError } from '../vending-errors.js';
import type { KindProvider } from './provider.js';
import { lastAssumed, tokenSessions, tokenWorkloadConfig } from './token-role.js';

/** The namespace of the ServiceAccount: the cluster's own, or the controller's for a platform-wide identity. */
const tokenNamespace = (identity: AWSClusterWebIdentity, namespace: string, controllerNamespace: string) =>
  identity.spec.serviceAccount.namespace === 'Controller' ? controllerNamespace : namespace;

/** A web identity's token: of its ServiceAccount in the cluster's namespace, or the controller's. */
const webSessions = tokenSessions<AWSClusterWebIdentity>((identity, context) => ({
  namespace: tokenNamespace(identity, context.namespace, context.controllerNamespace),
  name: identity.spec.serviceAccount.name,
}));

/**
 * An IAM role assumed with sts:AssumeRoleWithWebIdentity (unsigned), with a token of a Kubernetes
 * ServiceAccount in the cluster's own namespace: the role's trust policy can name that namespace's
 * subject, so AWS itself refuses every other namespace, whatever allowedNamespaces says.
 */
export const webProvider: KindProvider<AWSClusterWebIdentity> = {
  kind: 'AWSClusterWebIdentity',
  callsSts: true,
  source: () => undefined,
  secrets: () => [],
  // The fields sent to STS and TokenRequest, and where the token comes from: one session per namespace.
  credentialInputs: ({ identity }, namespace, controllerNamespace) => {
    const { allowedNamespaces, credentialVending, resourceTags, ...assume } = identity.spec;
    return { ...assume, tokenNamespace: tokenNamespace(identity, namespace, controllerNamespace) };
  },
  credentials: webSessions.credentials,
  vending: {
    narrowed: webSessions.narrowed,
    refusal: (identity, link) =>
      identity.spec.serviceAccount.namespace === 'Controller'
        ? new ControllerNamespaceTokenNotVendableError(link)
        : undefined,
    workloadConfig: tokenWorkloadConfig,
  },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) =>
    `role ${identity.spec.roleARN} with a token of ServiceAccount ${identity.spec.serviceAccount.name} in ` +
    (identity.spec.serviceAccount.namespace === 'Controller'
      ? "the controller's namespace"
      : "the cluster's namespace"),
  warnings: () => [],
  status: lastAssumed,
};
