import type { World } from '@keymaster/aws-emulator';

/** A management account, a tenant with static keys and a tenant reached through a role chain. */
export const MANAGEMENT = '111111111111';
export const TENANT_A = '222222222222';
export const TENANT_B = '333333333333';
export const EXTERNAL_ID = '7a5b816a-7743-4377-a382-2d695bf1f172';
/** The externalID tenant B's role also accepts: a rotation under way, both values in the trust policy. */
export const EXTERNAL_ID_ROTATED = 'c2d1e0f3-5b4a-4e8c-9d7f-tenant-b-next';

export const CONTROLLER_KEYS = {
  accessKeyId: 'AKIAEXAMPLECONTROLLER',
  secretAccessKey: 'controller-secret-key-0000000000000000000',
};
export const TENANT_A_KEYS = {
  accessKeyId: 'AKIAEXAMPLETENANTA01',
  secretAccessKey: 'tenant-a-secret-key-1111111111111111111',
};
export const TENANT_A_ROTATED = {
  accessKeyId: 'AKIAEXAMPLETENANTA02',
  secretAccessKey: 'tenant-a-secret-key-2222222222222222222',
};

export const ROLE = {
  hub: `arn:aws:iam::${MANAGEMENT}:role/keymaster-hub`,
  tenantB: `arn:aws:iam::${TENANT_B}:role/tenant-b-admin`,
  deep: `arn:aws:iam::${TENANT_B}:role/tenant-b-deep`,
  short: `arn:aws:iam::${MANAGEMENT}:role/short-sessions`,
  viaStatic: `arn:aws:iam::${TENANT_A}:role/tenant-a-tagger`,
};

export function world(): World {
  return {
    accounts: [
      {
        id: MANAGEMENT,
        users: [
          {
            name: 'keymaster-controller',
            accessKeys: [CONTROLLER_KEYS],
            allow: ['sts:AssumeRole', 'sts:GetCallerIdentity', 'tag:GetResources'],
          },
        ],
        roles: [
          {
            name: 'keymaster-hub',
            trust: [
              {
                principal: `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller`,
                actions: ['sts:AssumeRole', 'sts:TagSession'],
              },
            ],
            allow: ['sts:AssumeRole', 'sts:TagSession', 'sts:GetCallerIdentity'],
          },
          {
            name: 'short-sessions',
            trust: [{ principal: `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller` }],
            allow: ['sts:GetCallerIdentity', 'tag:*'],
          },
        ],
      },
      {
        id: TENANT_A,
        users: [
          {
            name: 'tenant-a-automation',
            accessKeys: [TENANT_A_KEYS, TENANT_A_ROTATED],
            allow: ['sts:AssumeRole', 'sts:GetCallerIdentity', 'tag:*'],
          },
        ],
        roles: [
          {
            name: 'tenant-a-tagger',
            maxSessionDuration: 7200,
            trust: [{ principal: `arn:aws:iam::${TENANT_A}:user/tenant-a-automation` }],
            allow: ['sts:GetCallerIdentity', 'tag:*'],
          },
        ],
      },
      {
        id: TENANT_B,
        roles: [
          {
            name: 'tenant-b-admin',
            trust: [EXTERNAL_ID, EXTERNAL_ID_ROTATED].map((externalId) => ({
              principal: ROLE.hub,
              externalId,
              actions: ['sts:AssumeRole', 'sts:TagSession'],
            })),
            allow: [
              'sts:AssumeRole',
              'sts:GetCallerIdentity',
              'tag:*',
              'ec2:CreateTags',
              'ec2:DeleteTags',
              'ec2:DescribeTags',
            ],
          },
          {
            name: 'tenant-b-deep',
            trust: [{ principal: ROLE.tenantB }],
            allow: ['sts:GetCallerIdentity', 'tag:*'],
          },
        ],
      },
    ],
  };
}
