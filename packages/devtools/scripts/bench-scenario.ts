import { ADOPT_LABEL, ADOPT_LABEL_VALUE, CAPA_GROUP } from '@keymaster/api';
import type { AccountSpec, World } from '@keymaster/aws-emulator';
import type { Manifest } from '@keymaster/testenv';

/**
 * The benchmark's management cluster and AWS: `clusters` AWSClusters of 20 resources each, spread
 * over 18 tenants and 3 regions, and 20 identities: the controller identity, a hub role, and per
 * tenant a static identity (6), a role assumed with the controller's keys (6) or a role chained
 * through the hub with an externalID (6). Every tenant has its own account and namespace.
 * The many-identities fleet (`identities` > 0) has that many tenants instead, each with a role of its
 * own: two in three assumed with the controller's keys, one in three chained through the hub.
 * The adopted fleet (`adopted`) is the same clusters and identities as Cluster API's AWS provider
 * (CAPA) keeps them, for `keymaster run --adopt-cluster-api`: per cluster a Cluster and CAPA's
 * AWSCluster (whose additionalTags CAPA has already written on the resources), CAPA's identity kinds
 * (no resourceTags: CAPA's have none), their Secrets in CAPA's namespace, and the tenants' namespaces
 * labelled for adoption. AWS is the same.
 */
export const RESOURCES_PER_CLUSTER = 20;
const TENANTS = 18;
const KINDS: readonly TenantKind[] = ['static', 'role', 'chained'];
const FLEET_KINDS: readonly TenantKind[] = ['role', 'role', 'chained'];
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const NAMESPACE = 'keymaster-system';
/** CAPA's namespace (`--capa-namespace`'s default), where its static identities' Secrets are. */
const CAPA_NAMESPACE = 'capa-system';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';
const CAPA_API_VERSION = `${CAPA_GROUP}/v1beta2`;
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

const object = (
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  namespace?: string,
  apiVersion = API_VERSION,
): Manifest => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec,
});

/** Who keeps the clusters and identities: Keymaster's own kinds, or CAPA's, which Keymaster adopts. */
interface Kinds {
  /** A cluster-scoped identity of this kind family. */
  identity: (kind: string, name: string, spec: Record<string, unknown>) => Manifest;
  secretNamespace: string;
  /** The tags an identity adds: Keymaster's kinds carry the tenant's; CAPA's have no such field. */
  identityTags: (tenant: Tenant) => Record<string, unknown>;
  namespaces: (tenants: readonly Tenant[]) => Manifest[];
  clusterObjects: (cluster: Cluster) => Manifest[];
  /** Tags already on a cluster's resources besides its ownership tag. */
  writtenBefore: (cluster: Cluster) => Record<string, string>;
}

interface Cluster {
  name: string;
  tenant: Tenant;
  region: string;
  additionalTags: Record<string, string>;
}

const namespace = (name: string, labels?: Record<string, string>): Manifest => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...(labels ? { labels } : {}) },
});

const clusterSpec = ({ tenant, region, additionalTags }: Cluster) => ({
  region,
  identityRef: {
    kind: tenant.kind === 'static' ? 'AWSClusterStaticIdentity' : 'AWSClusterRoleIdentity',
    name: tenant.name,
  },
  additionalTags,
});

const KEYMASTER_KINDS: Kinds = {
  identity: (kind, name, spec) => object(kind, name, spec),
  secretNamespace: NAMESPACE,
  identityTags: (tenant) => ({ resourceTags: [{ key: 'tenant', value: tenant.name, overridePolicy: 'Deny' }] }),
  namespaces: (tenants) => tenants.map(({ name }) => namespace(name)),
  clusterObjects: (cluster) => [object('AWSCluster', cluster.name, clusterSpec(cluster), cluster.tenant.name)],
  writtenBefore: () => ({}),
};

const CAPA_KINDS: Kinds = {
  identity: (kind, name, spec) => object(kind, name, spec, undefined, CAPA_API_VERSION),
  secretNamespace: CAPA_NAMESPACE,
  identityTags: () => ({}),
  namespaces: (tenants) => [
    ...tenants.map(({ name }) => namespace(name, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE })),
    namespace(CAPA_NAMESPACE),
  ],
  clusterObjects: (cluster) => [
    object(
      'Cluster',
      cluster.name,
      { infrastructureRef: { apiGroup: CAPA_GROUP, kind: 'AWSCluster', name: cluster.name } },
      cluster.tenant.name,
      'cluster.x-k8s.io/v1beta2',
    ),
    object('AWSCluster', cluster.name, clusterSpec(cluster), cluster.tenant.name, CAPA_API_VERSION),
  ],
  // CAPA writes its AWSCluster's additionalTags on what it creates.
  writtenBefore: ({ additionalTags }) => additionalTags,
};

const staticKeys = (tenant: Tenant) => ({
  accessKeyId: `AKIABENCH${tenant.account}`,
  secretAccessKey: `bench-secret-${tenant.name}-do-not-use-0000000000`,
});

function identity(tenant: Tenant, kinds: Kinds): Manifest[] {
  const common = { allowedNamespaces: { list: [tenant.name] }, ...kinds.identityTags(tenant) };
  const roleARN = `arn:aws:iam::${tenant.account}:role/keymaster`;
  switch (tenant.kind) {
    case 'static':
      return [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${tenant.name}-keys`, namespace: kinds.secretNamespace },
          stringData: {
            AccessKeyID: staticKeys(tenant).accessKeyId,
            SecretAccessKey: staticKeys(tenant).secretAccessKey,
          },
        } as Manifest,
        kinds.identity('AWSClusterStaticIdentity', tenant.name, { secretRef: `${tenant.name}-keys`, ...common }),
      ];
    case 'role':
      return [kinds.identity('AWSClusterRoleIdentity', tenant.name, { roleARN, ...common })];
    case 'chained':
      return [
        kinds.identity('AWSClusterRoleIdentity', tenant.name, {
          roleARN,
          externalID: `external-${tenant.name}`,
          sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' },
          ...common,
        }),
      ];
  }
}

function account(tenant: Tenant, clusters: readonly Cluster[], kinds: Kinds): AccountSpec {
  const resources = clusters
    .filter((cluster) => cluster.tenant === tenant)
    .flatMap((cluster) =>
      Array.from({ length: RESOURCES_PER_CLUSTER }, (_, index) => ({
        arn: `arn:aws:ec2:${cluster.region}:${tenant.account}:instance/i-${cluster.name.slice(-5)}${String(index).padStart(12, '0')}`,
        tags: {
          [`sigs.k8s.io/cluster-api-provider-aws/cluster/${cluster.name}`]: 'owned',
          ...kinds.writtenBefore(cluster),
        },
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

export function benchScenario(
  clusterCount: number,
  identities = 0,
  adopted = false,
): { world: World; objects: Manifest[] } {
  const kinds = adopted ? CAPA_KINDS : KEYMASTER_KINDS;
  const tenants = identities > 0 ? tenantsOf(identities, FLEET_KINDS) : tenantsOf(TENANTS, KINDS);
  const clusters: Cluster[] = Array.from({ length: clusterCount }, (_, index) => ({
    name: `cluster-${String(index).padStart(5, '0')}`,
    tenant: tenants[index % tenants.length]!,
    region: REGIONS[Math.floor(index / tenants.length) % REGIONS.length]!,
    additionalTags: { team: `team-${index % 7}`, environment: index % 2 ? 'production' : 'staging' },
  }));
  const roleTenants = tenants.filter(({ kind }) => kind !== 'static').map(({ name }) => name);
  const chainedTenants = tenants.filter(({ kind }) => kind === 'chained').map(({ name }) => name);
  const objects: Manifest[] = [
    ...kinds.namespaces(tenants),
    object('AWSTagPolicy', 'default', {
      resourceTags: [
        { key: 'platform-managed', value: 'true', overridePolicy: 'Deny' },
        { key: 'cost-center', value: 'platform' },
      ],
    }),
    kinds.identity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: roleTenants } }),
    kinds.identity('AWSClusterRoleIdentity', 'keymaster-hub', {
      roleARN: HUB_ARN,
      allowedNamespaces: { list: chainedTenants },
    }),
    ...tenants.flatMap((tenant) => identity(tenant, kinds)),
    ...clusters.flatMap(kinds.clusterObjects),
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
      ...tenants.map((tenant) => account(tenant, clusters, kinds)),
    ],
  };
  return { world, objects };
}
