import type { AccountSpec, World } from '@keymaster/aws-emulator';
import type { Manifest } from '@keymaster/testenv';

/**
 * The benchmark's management cluster and AWS: `clusters` AWSClusters of 20 resources each, spread
 * over 18 tenants and 3 regions, and 20 identities: the controller identity, a hub role, and per
 * tenant a static identity (6), a role assumed with the controller's keys (6) or a role chained
 * through the hub with an externalID (6). Every tenant has its own account and namespace.
 * The many-identities fleet (`identities` > 0) has that many tenants instead, each with a role of its
 * own: two in three assumed with the controller's keys, one in three chained through the hub.
 */
export const RESOURCES_PER_CLUSTER = 20;
const TENANTS = 18;
const KINDS: readonly TenantKind[] = ['static', 'role', 'chained'];
const FLEET_KINDS: readonly TenantKind[] = ['role', 'role', 'chained'];
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const NAMESPACE = 'keymaster-system';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';
const PLATFORM = '111111111111';
const CONTROLLER_ARN = `arn:aws:iam::${PLATFORM}:user/keymaster-controller`;
const HUB_ARN = `arn:aws:iam::${PLATFORM}:role/keymaster-hub`;
const TAGGING = [
  'tag:GetResources',
  'tag:TagResources',
  'tag:UntagResources',
  'ec2:CreateTags',
  'ec2:DeleteTags',
  'ec2:DescribeTags',
];

type TenantKind = 'static' | 'role' | 'chained';

interface Tenant {
  name: string;
  account: string;
  kind: TenantKind;
}

const tenantsOf = (count: number, kinds: readonly TenantKind[]): Tenant[] =>
  Array.from({ length: count }, (_, index) => ({
    name: `tenant-${String(index).padStart(String(count - 1).length, '0')}`,
    account: String(200_000_000_000 + index),
    kind: kinds[index % kinds.length]!,
  }));

const object = (kind: string, name: string, spec: Record<string, unknown>, namespace?: string): Manifest => ({
  apiVersion: API_VERSION,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec,
});

const staticKeys = (tenant: Tenant) => ({
  accessKeyId: `AKIABENCH${tenant.account}`,
  secretAccessKey: `bench-secret-${tenant.name}-do-not-use-0000000000`,
});

function identity(tenant: Tenant): Manifest[] {
  const common = {
    allowedNamespaces: { list: [tenant.name] },
    resourceTags: [{ key: 'tenant', value: tenant.name, overridePolicy: 'Deny' }],
  };
  const roleARN = `arn:aws:iam::${tenant.account}:role/keymaster`;
  switch (tenant.kind) {
    case 'static':
      return [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${tenant.name}-keys`, namespace: NAMESPACE },
          stringData: {
            AccessKeyID: staticKeys(tenant).accessKeyId,
            SecretAccessKey: staticKeys(tenant).secretAccessKey,
          },
        } as Manifest,
        object('AWSClusterStaticIdentity', tenant.name, { secretRef: `${tenant.name}-keys`, ...common }),
      ];
    case 'role':
      return [object('AWSClusterRoleIdentity', tenant.name, { roleARN, ...common })];
    case 'chained':
      return [
        object('AWSClusterRoleIdentity', tenant.name, {
          roleARN,
          externalID: `external-${tenant.name}`,
          sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' },
          ...common,
        }),
      ];
  }
}

function account(tenant: Tenant, clusters: readonly { name: string; tenant: Tenant; region: string }[]): AccountSpec {
  const resources = clusters
    .filter((cluster) => cluster.tenant === tenant)
    .flatMap(({ name, region }) =>
      Array.from({ length: RESOURCES_PER_CLUSTER }, (_, index) => ({
        arn: `arn:aws:ec2:${region}:${tenant.account}:instance/i-${name.slice(-5)}${String(index).padStart(12, '0')}`,
        tags: { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${name}`]: 'owned' },
      })),
    );
  if (tenant.kind === 'static')
    return {
      id: tenant.account,
      users: [{ name: 'keymaster', accessKeys: [staticKeys(tenant)], allow: TAGGING }],
      resources,
    };
  const trust =
    tenant.kind === 'role'
      ? { principal: CONTROLLER_ARN }
      : { principal: HUB_ARN, externalId: `external-${tenant.name}` };
  return { id: tenant.account, roles: [{ name: 'keymaster', trust: [trust], allow: TAGGING }], resources };
}

export function benchScenario(clusterCount: number, identities = 0): { world: World; objects: Manifest[] } {
  const tenants = identities > 0 ? tenantsOf(identities, FLEET_KINDS) : tenantsOf(TENANTS, KINDS);
  const clusters = Array.from({ length: clusterCount }, (_, index) => ({
    name: `cluster-${String(index).padStart(5, '0')}`,
    tenant: tenants[index % tenants.length]!,
    region: REGIONS[Math.floor(index / tenants.length) % REGIONS.length]!,
  }));
  const roleTenants = tenants.filter(({ kind }) => kind !== 'static').map(({ name }) => name);
  const chainedTenants = tenants.filter(({ kind }) => kind === 'chained').map(({ name }) => name);
  const objects: Manifest[] = [
    ...tenants.map((tenant) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: tenant.name } })),
    object('AWSTagPolicy', 'default', {
      resourceTags: [
        { key: 'platform-managed', value: 'true', overridePolicy: 'Deny' },
        { key: 'cost-center', value: 'platform' },
      ],
    }),
    object('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: roleTenants } }),
    object('AWSClusterRoleIdentity', 'keymaster-hub', {
      roleARN: HUB_ARN,
      allowedNamespaces: { list: chainedTenants },
    }),
    ...tenants.flatMap(identity),
    ...clusters.map(({ name, tenant, region }, index) =>
      object(
        'AWSCluster',
        name,
        {
          region,
          identityRef: {
            kind: tenant.kind === 'static' ? 'AWSClusterStaticIdentity' : 'AWSClusterRoleIdentity',
            name: tenant.name,
          },
          additionalTags: { team: `team-${index % 7}`, environment: index % 2 ? 'production' : 'staging' },
        },
        tenant.name,
      ),
    ),
  ];
  const world: World = {
    accounts: [
      {
        id: PLATFORM,
        users: [
          {
            name: 'keymaster-controller',
            accessKeys: [
              { accessKeyId: 'AKIABENCHCONTROLLER1', secretAccessKey: 'bench-controller-secret-do-not-use-000' },
            ],
            allow: ['sts:AssumeRole'],
          },
        ],
        roles: [{ name: 'keymaster-hub', trust: [{ principal: CONTROLLER_ARN }], allow: ['sts:AssumeRole'] }],
      },
      ...tenants.map((tenant) => account(tenant, clusters)),
    ],
  };
  return { world, objects };
}
