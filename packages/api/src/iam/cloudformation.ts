import { EXTERNAL_ID, ROLE_ARN } from '../schema/patterns.js';
import { roleTrustPolicy } from './roles.js';
import { taggingPolicy } from './tagging.js';

/**
 * A CloudFormation template creating a tenant role in a tenant account: the tagging permissions, and a
 * trust policy naming the hub with the tenant's externalID. Every account-specific value is a
 * parameter, so one StackSet deploys it to every tenant account.
 */
export function tenantRoleTemplate(): Record<string, unknown> {
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description:
      "Keymaster's tenant role: tags the account's cluster resources, assumed by Keymaster's hub role with the tenant's externalID.",
    Parameters: {
      HubRoleArn: {
        Type: 'String',
        Description: "The ARN of Keymaster's hub role, in the management account.",
        AllowedPattern: ROLE_ARN,
      },
      ExternalId: {
        Type: 'String',
        Description: "The tenant's externalID: the AWSClusterRoleIdentity's externalIDSecretRef holds the same.",
        NoEcho: true,
        MinLength: 2,
        MaxLength: 1224,
        AllowedPattern: EXTERNAL_ID,
      },
      RoleName: { Type: 'String', Default: 'keymaster-tenant', Description: 'The name of the tenant role.' },
    },
    Resources: {
      TenantRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          RoleName: { Ref: 'RoleName' },
          Description: 'Keymaster tags the cluster resources of this account through this role.',
          AssumeRolePolicyDocument: roleTrustPolicy({
            principal: { Ref: 'HubRoleArn' },
            externalId: { Ref: 'ExternalId' },
          }),
          Policies: [{ PolicyName: 'keymaster-tagging', PolicyDocument: taggingPolicy() }],
        },
      },
    },
    Outputs: {
      TenantRoleArn: {
        Description: "The roleARN of the tenant's AWSClusterRoleIdentity.",
        Value: { 'Fn::GetAtt': ['TenantRole', 'Arn'] },
      },
    },
  };
}
