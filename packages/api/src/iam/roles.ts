import { iamPolicy, type IamPolicy, type IamValue } from './document.js';

/** The audience Keymaster asks ServiceAccount tokens for unless a web identity names another (the CRD's default). */
export const DEFAULT_WEB_IDENTITY_AUDIENCE = 'sts.amazonaws.com';

/** A role's trusted principal: the hub (or the controller's own principal) assumes it, with session tags. */
export interface RoleTrust {
  /** The ARN of the role or user that assumes this role. */
  principal: IamValue;
  /** When set, AssumeRole must pass it (sts:ExternalId): the tenant's secret in the hub's requests. */
  externalId?: IamValue;
}

/**
 * The trust policy of a role Keymaster assumes with sts:AssumeRole: the hub (trusting the controller's
 * principal) and each tenant role (trusting the hub, with the tenant's externalID). sts:TagSession is
 * trusted alike, for identities' sessionTags.
 */
export function roleTrustPolicy({ principal, externalId }: RoleTrust): IamPolicy {
  return iamPolicy({
    Sid: 'KeymasterAssumesRole',
    Effect: 'Allow',
    Principal: { AWS: principal },
    Action: ['sts:AssumeRole', 'sts:TagSession'],
    ...(externalId === undefined ? {} : { Condition: { StringEquals: { 'sts:ExternalId': externalId } } }),
  });
}

/** A Kubernetes ServiceAccount that assumes a role with sts:AssumeRoleWithWebIdentity. */
export interface WebIdentityTrust {
  /** The ARN of the IAM OIDC provider of the cluster's service-account issuer, in the role's account. */
  provider: string;
  namespace: string;
  serviceAccount: string;
  audience?: string;
}

/**
 * The trust policy of a role assumed with a ServiceAccount's token: the controller's own under IRSA, and
 * each AWSClusterWebIdentity's role. `sub` names one namespace's ServiceAccount, so AWS itself refuses
 * every other namespace.
 */
export function webIdentityTrustPolicy({
  provider,
  namespace,
  serviceAccount,
  audience = DEFAULT_WEB_IDENTITY_AUDIENCE,
}: WebIdentityTrust): IamPolicy {
  const issuer = provider.replace(/^arn:[^:]+:iam::\d{12}:oidc-provider\//, '');
  return iamPolicy({
    Sid: 'ServiceAccountAssumesRole',
    Effect: 'Allow',
    Principal: { Federated: provider },
    Action: ['sts:AssumeRoleWithWebIdentity'],
    Condition: {
      StringEquals: {
        [`${issuer}:sub`]: `system:serviceaccount:${namespace}:${serviceAccount}`,
        [`${issuer}:aud`]: audience,
      },
    },
  });
}

/** The trust policy of the controller's role under EKS Pod Identity (the association names the ServiceAccount). */
export function podIdentityTrustPolicy(): IamPolicy {
  return iamPolicy({
    Sid: 'EksPodIdentityAssumesRole',
    Effect: 'Allow',
    Principal: { Service: 'pods.eks.amazonaws.com' },
    Action: ['sts:AssumeRole', 'sts:TagSession'],
  });
}

/**
 * What the controller's principal and the hub may do: assume roles (the hub, tenant roles, the links of
 * identity chains), with session tags. Which roles, their trust policies decide: every one trusts a
 * single principal, a tenant role also the tenant's externalID.
 */
export function assumeRolesPolicy(): IamPolicy {
  return iamPolicy({
    Sid: 'AssumeRoles',
    Effect: 'Allow',
    Action: ['sts:AssumeRole', 'sts:TagSession'],
    Resource: 'arn:aws:iam::*:role/*',
  });
}
