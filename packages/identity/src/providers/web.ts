import { AssumeRoleWithWebIdentityCommand } from '@aws-sdk/client-sts';
import { CredentialFailureReason, type AWSClusterWebIdentity, type SessionPolicy } from '@keymaster/api';
import { ApiException } from '@kubernetes/client-node';
import { awsErrorCode } from '../aws-codes.js';
import { stsCallError } from '../aws-failures.js';
import { IdentityError, type LinkName } from '../errors.js';
import { ControllerNamespaceTokenNotVendableError } from '../vending-errors.js';
import { defaultSessionName } from '../session-name.js';
import type { ChainLink, CredentialContext, CredentialSource, KindProvider } from './provider.js';
import { PACKED_POLICY_HINT, sessionInput } from './role.js';
import { sessionCredentials } from './session-credentials.js';

const DEFAULT_AUDIENCE = 'sts.amazonaws.com';
/**
 * How long the ServiceAccount token lives: the shortest TokenRequest grants. It is sent to STS at
 * once and never kept; the role session it buys lives durationSeconds.
 */
const TOKEN_EXPIRATION_SECONDS = 600;

/** The namespace of the ServiceAccount: the cluster's own, or the controller's for a platform-wide identity. */
const tokenNamespace = (identity: AWSClusterWebIdentity, namespace: string, controllerNamespace: string) =>
  identity.spec.serviceAccount.namespace === 'Controller' ? controllerNamespace : namespace;

/** The Kubernetes TokenRequest for a web identity's ServiceAccount failed: no STS call was made. */
export class ServiceAccountTokenError extends IdentityError {
  /** The HTTP status of the API server's answer, when there was one. */
  readonly status: number | undefined;

  constructor(link: LinkName, serviceAccount: string, status: number | undefined, reason: string, cause?: unknown) {
    const hints: Record<number, string> = {
      404: `Create the ServiceAccount ${serviceAccount} (${link.kind}/${link.name} asks for a token of it: see its spec).`,
      403: 'The controller may not create tokens for it: its ClusterRole needs create on serviceaccounts/token (deploy/rbac), in this namespace at least (docs/security.md shows how to narrow it).',
    };
    super(
      'ERR_KEYMASTER_SERVICE_ACCOUNT_TOKEN_FAILED',
      `TokenRequest for ServiceAccount ${serviceAccount} of ${link.kind}/${link.name} failed: ${reason}`,
      {
        hint:
          (status === undefined ? undefined : hints[status]) ??
          'The controller retries with backoff; check the API server if it persists.',
        link,
        cause,
        reason: CredentialFailureReason.ServiceAccountTokenFailed,
        usageChecked: true,
        transient: status === undefined || status >= 500 || status === 429,
      },
    );
    this.status = status;
  }
}

function assumeHint(name: string, spec: TokenRoleSpec, subject: string): string {
  const code = awsErrorCode(name);
  const { roleARN } = spec;
  if (code === 'AccessDenied')
    return `The trust policy of ${roleARN} must trust the cluster's OIDC provider (sts:AssumeRoleWithWebIdentity) for the subject ${subject}: a role that trusts another namespace's ServiceAccount refuses this one, whatever allowedNamespaces says.`;
  if (code === 'InvalidIdentityToken')
    return `The role's account needs an IAM OIDC identity provider for the cluster's service-account issuer, with ${spec.audience ?? DEFAULT_AUDIENCE} among its audiences, and its keys must be reachable (the issuer's discovery documents public).`;
  if (code === 'IDPRejectedClaim')
    return `The OIDC provider refused the token's claims: check that its audiences include ${spec.audience ?? DEFAULT_AUDIENCE}.`;
  if (code === 'ValidationError')
    return "Check durationSeconds against the role's maximum session duration, and the session parameters.";
  if (code === 'PackedPolicyTooLarge') return PACKED_POLICY_HINT;
  return "See AWS's message above; the controller retries with backoff.";
}

/** What a token-assumed role sends: the fields of a web identity's spec that STS and TokenRequest take. */
export interface TokenRoleSpec {
  roleARN: string;
  audience?: string;
  sessionName?: string;
  durationSeconds?: number;
  inlinePolicy?: string;
  policyARNs?: string[];
}

/**
 * sts:AssumeRoleWithWebIdentity of `spec.roleARN` with a fresh token of `serviceAccount`
 * (`{namespace, name}`), with its own session policy or a request's.
 */
export function assumeWithToken(
  link: LinkName,
  spec: TokenRoleSpec,
  serviceAccount: { namespace: string; name: string },
  context: CredentialContext,
  session?: SessionPolicy,
): CredentialSource {
  return async () => {
    const { namespace, name: account } = serviceAccount;
    const audience = spec.audience ?? DEFAULT_AUDIENCE;
    let token: string;
    try {
      ({ token } = await context.serviceAccountTokens.request(namespace, account, audience, TOKEN_EXPIRATION_SECONDS));
    } catch (error) {
      if (error instanceof IdentityError) throw error;
      const status = error instanceof ApiException ? error.code : undefined;
      const reason = status === undefined ? (error as Error).message : `the API server answered ${status}`;
      throw new ServiceAccountTokenError(link, `${namespace}/${account}`, status, reason, error);
    }
    let output;
    try {
      output = await context.unsignedSts().send(
        new AssumeRoleWithWebIdentityCommand({
          RoleArn: spec.roleARN,
          RoleSessionName: spec.sessionName ?? defaultSessionName(link.name),
          WebIdentityToken: token,
          ...sessionInput(spec, session),
        }),
      );
    } catch (error) {
      context.stsCall('AssumeRoleWithWebIdentity', error as Error);
      const subject = `system:serviceaccount:${namespace}:${account}`;
      throw stsCallError(
        link,
        'sts:AssumeRoleWithWebIdentity',
        error,
        context.stsEndpoint,
        assumeHint((error as Error).name, spec, subject),
      );
    }
    context.stsCall('AssumeRoleWithWebIdentity');
    return sessionCredentials(link, 'sts:AssumeRoleWithWebIdentity', output.Credentials);
  };
}

/** A web identity's token: of its ServiceAccount in the cluster's namespace, or the controller's. */
const webToken = (
  { kind, name, identity }: ChainLink<AWSClusterWebIdentity>,
  context: CredentialContext,
  session?: SessionPolicy,
): CredentialSource =>
  assumeWithToken(
    { kind, name },
    identity.spec,
    {
      namespace: tokenNamespace(identity, context.namespace, context.controllerNamespace),
      name: identity.spec.serviceAccount.name,
    },
    context,
    session,
  );

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
  credentials: (link, context) => webToken(link, context),
  vending: {
    narrowed: (link, context, session) => webToken(link, context, session),
    refusal: (identity, link) =>
      identity.spec.serviceAccount.namespace === 'Controller'
        ? new ControllerNamespaceTokenNotVendableError(link)
        : undefined,
    workloadConfig: ({ metadata, spec }) => ({
      roleArn: spec.roleARN,
      sessionName: spec.sessionName ?? defaultSessionName(metadata.name ?? ''),
    }),
  },
  linkDetails: (identity) => ({ roleARN: identity.spec.roleARN }),
  actsWith: (identity) =>
    `role ${identity.spec.roleARN} with a token of ServiceAccount ${identity.spec.serviceAccount.name} in ` +
    (identity.spec.serviceAccount.namespace === 'Controller'
      ? "the controller's namespace"
      : "the cluster's namespace"),
  warnings: () => [],
  status: (_identity, { renewedAt }) => (renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {}),
};
