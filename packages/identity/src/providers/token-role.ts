import { AssumeRoleWithWebIdentityCommand } from '@aws-sdk/client-sts';
import { CredentialFailureReason, type IdentityObject, type SessionPolicy } from '@keymaster/api';
import { ApiException } from '@kubernetes/client-node';
import { awsErrorCode } from '../aws-codes.js';
import { stsCallError } from '../aws-failures.js';
import { IdentityError, type LinkName } from '../errors.js';
import { defaultSessionName } from '../session-name.js';
import type { ChainLink, CredentialContext, CredentialSource, Observed, WorkloadWebIdentity } from './provider.js';
import { PACKED_POLICY_HINT, sessionInput } from './role.js';
import { sessionCredentials } from './session-credentials.js';

const DEFAULT_AUDIENCE = 'sts.amazonaws.com';
/**
 * How long the ServiceAccount token lives: the shortest TokenRequest grants. It is sent to STS at
 * once and never kept; the role session it buys lives durationSeconds.
 */
const TOKEN_EXPIRATION_SECONDS = 600;

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
function assumeWithToken(
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

/** An identity whose role is assumed with a ServiceAccount token (the web and ServiceAccount identities). */
type TokenRoleIdentity = IdentityObject & { spec: TokenRoleSpec };

/**
 * A token-assumed role's credentials and its sessions narrowed by a request, with a token of the
 * ServiceAccount `serviceAccountOf` names for the identity and the asking namespace.
 */
export function tokenSessions<I extends TokenRoleIdentity>(
  serviceAccountOf: (identity: I, context: CredentialContext) => { namespace: string; name: string },
) {
  const assume = ({ kind, name, identity }: ChainLink<I>, context: CredentialContext, session?: SessionPolicy) =>
    assumeWithToken({ kind, name }, identity.spec, serviceAccountOf(identity, context), context, session);
  return {
    credentials: (link: ChainLink<I>, context: CredentialContext) => assume(link, context),
    narrowed: (link: ChainLink<I>, context: CredentialContext, session: SessionPolicy) =>
      assume(link, context, session),
  };
}

/** What workloads assume with their own tokens (WebIdentity mode): the identity's role and session name. */
export const tokenWorkloadConfig = ({ metadata, spec }: TokenRoleIdentity): WorkloadWebIdentity => ({
  roleArn: spec.roleARN,
  sessionName: spec.sessionName ?? defaultSessionName(metadata.name ?? ''),
});

/** Its status: when its role was last assumed. */
export const lastAssumed = (_identity: unknown, { renewedAt }: Observed) =>
  renewedAt ? { lastAssumeRoleTime: renewedAt.toISOString() } : {};
