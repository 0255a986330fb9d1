import type { World } from '../../src/index.js';

/** The accounts, keys, roles and resources most tests share. */
export const ACCOUNT = '111111111111';
export const OTHER_ACCOUNT = '222222222222';
export const REGION = 'us-west-2';

export const CONTROLLER = {
  accessKeyId: 'AKIAEXAMPLECONTROLLER',
  secretAccessKey: 'controller/secret/K7MDENG+bPxRfiCYEXAMPLEKEY',
  arn: `arn:aws:iam::${ACCOUNT}:user/keymaster-controller`,
};
export const STRANGER = {
  accessKeyId: 'AKIAEXAMPLESTRANGER1',
  secretAccessKey: 'stranger-secret-0123456789abcdefghijklmn',
  arn: `arn:aws:iam::${OTHER_ACCOUNT}:user/stranger`,
};
/** A user with no permissions of its own. */
export const AUDITOR = {
  accessKeyId: 'AKIAEXAMPLEAUDITOR01',
  secretAccessKey: 'auditor-secret-0123456789abcdefghijklmno',
  arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
};
export const EXTERNAL_ID = '7a5b816a-7743-4377-a382-2d695bf1f172';

export const ROLES = {
  tenantAdmin: `arn:aws:iam::${ACCOUNT}:role/tenant-b-admin`,
  longSessions: `arn:aws:iam::${ACCOUNT}:role/long-sessions`,
  readOnly: `arn:aws:iam::${ACCOUNT}:role/read-only`,
  crossAccount: `arn:aws:iam::${OTHER_ACCOUNT}:role/cross-account`,
  /** Trusts the auditor by name: no identity permission needed. */
  auditByName: `arn:aws:iam::${ACCOUNT}:role/audit-by-name`,
  /** Trusts the whole account: the caller's own policies must allow sts:AssumeRole too. */
  auditByAccount: `arn:aws:iam::${ACCOUNT}:role/audit-by-account`,
};

export const INSTANCE = `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/i-0123456789abcdef0`;
export const VPC = `arn:aws:ec2:${REGION}:${ACCOUNT}:vpc/vpc-0a1b2c3d4e5f60718`;
export const SUBNET = `arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/subnet-0a1b2c3d4e5f60718`;
export const EAST_INSTANCE = `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-0fedcba9876543210`;
export const OWNED = 'sigs.k8s.io/cluster-api-provider-aws/cluster/prod-1';

export function testWorld(): World {
  return {
    accounts: [
      {
        id: ACCOUNT,
        users: [
          {
            name: 'keymaster-controller',
            accessKeys: [{ accessKeyId: CONTROLLER.accessKeyId, secretAccessKey: CONTROLLER.secretAccessKey }],
            allow: ['sts:AssumeRole', 'sts:GetCallerIdentity'],
          },
          {
            name: 'auditor',
            accessKeys: [{ accessKeyId: AUDITOR.accessKeyId, secretAccessKey: AUDITOR.secretAccessKey }],
          },
        ],
        roles: [
          {
            name: 'tenant-b-admin',
            maxSessionDuration: 3600,
            trust: [
              { principal: CONTROLLER.arn, externalId: EXTERNAL_ID, actions: ['sts:AssumeRole', 'sts:TagSession'] },
            ],
            allow: ['tag:*', 'ec2:CreateTags', 'ec2:DeleteTags', 'ec2:DescribeTags', 'sts:AssumeRole'],
          },
          {
            name: 'long-sessions',
            maxSessionDuration: 43200,
            trust: [{ principal: ACCOUNT }],
            allow: ['sts:AssumeRole', 'tag:GetResources'],
          },
          {
            name: 'read-only',
            trust: [{ principal: ROLES.tenantAdmin }, { principal: ROLES.longSessions }],
            policies: [`arn:aws:iam::${ACCOUNT}:policy/ReadTags`],
          },
          { name: 'audit-by-name', trust: [{ principal: AUDITOR.arn }], allow: ['tag:GetResources'] },
          { name: 'audit-by-account', trust: [{ principal: ACCOUNT }], allow: ['tag:GetResources'] },
        ],
        policies: [
          {
            arn: `arn:aws:iam::${ACCOUNT}:policy/ReadTags`,
            document: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: ['tag:Get*', 'ec2:DescribeTags'], Resource: '*' }],
            },
          },
          {
            arn: `arn:aws:iam::${ACCOUNT}:policy/TagOnly`,
            document: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: ['tag:*', 'ec2:CreateTags'], Resource: '*' }],
            },
          },
        ],
        resources: [
          { arn: INSTANCE, tags: { [OWNED]: 'owned', Name: 'prod-1-control-plane' } },
          { arn: VPC, tags: { [OWNED]: 'owned', 'aws:cloudformation:stack-name': 'network' } },
          { arn: SUBNET },
          { arn: EAST_INSTANCE, tags: { [OWNED]: 'owned' } },
        ],
      },
      {
        id: OTHER_ACCOUNT,
        users: [
          {
            name: 'stranger',
            accessKeys: [{ accessKeyId: STRANGER.accessKeyId, secretAccessKey: STRANGER.secretAccessKey }],
            allow: ['*'],
          },
        ],
        roles: [
          {
            name: 'cross-account',
            trust: [{ principal: `arn:aws:iam::${ACCOUNT}:root` }],
            allow: ['tag:GetResources'],
          },
        ],
      },
    ],
  };
}
