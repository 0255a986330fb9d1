import {
  assumeRolesPolicy,
  podIdentityTrustPolicy,
  roleTrustPolicy,
  taggingPolicy,
  tenantRoleTemplate,
  webIdentityTrustPolicy,
} from '../src/iam/index.js';

/**
 * The example values of deploy/iam's trust policies, in the shapes AWS's documentation uses: the
 * platform team replaces them (docs/operations.md#the-aws-side). The CloudFormation template has none.
 */
export const IAM_EXAMPLE = {
  managementAccount: '111122223333',
  tenantAccount: '444455556666',
  issuer: 'oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE',
  externalId: 'replace-with-the-tenant-externalID',
};

const { managementAccount, tenantAccount, issuer, externalId } = IAM_EXAMPLE;
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** deploy/iam/'s files by name: each role's permission and trust policies, and the tenant role's template. */
export function iamFiles(): Map<string, string> {
  return new Map([
    ['assume-roles-policy.json', json(assumeRolesPolicy())],
    ['tagging-policy.json', json(taggingPolicy())],
    [
      'controller-trust-irsa.json',
      json(
        webIdentityTrustPolicy({
          provider: `arn:aws:iam::${managementAccount}:oidc-provider/${issuer}`,
          namespace: 'keymaster-system',
          serviceAccount: 'keymaster',
        }),
      ),
    ],
    ['controller-trust-pod-identity.json', json(podIdentityTrustPolicy())],
    [
      'hub-trust.json',
      json(roleTrustPolicy({ principal: `arn:aws:iam::${managementAccount}:role/keymaster-controller` })),
    ],
    [
      'tenant-trust.json',
      json(roleTrustPolicy({ principal: `arn:aws:iam::${managementAccount}:role/keymaster-hub`, externalId })),
    ],
    [
      'web-identity-trust.json',
      json(
        webIdentityTrustPolicy({
          provider: `arn:aws:iam::${tenantAccount}:oidc-provider/${issuer}`,
          namespace: 'tenant-a',
          serviceAccount: 'tenant-a-workloads',
        }),
      ),
    ],
    ['tenant-role.template.json', json(tenantRoleTemplate())],
  ]);
}
