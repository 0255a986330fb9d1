import { expect } from 'chai';
import type { AccountSpec } from '@keymaster/aws-emulator';
import type { AWSCluster, AWSClusterRoleIdentity, IdentityKind, IdentityReference } from '@keymaster/api';
import {
  CONTROLLER_USER,
  HUB_ROLE,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
  userArn,
} from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { isReady } from './support/kube.js';
import {
  awsCluster,
  controllerIdentity,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
  tagPolicy,
  type KubeObject,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const CLUSTERS = 200;
const REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-west-2',
  'eu-central-1',
  'ap-south-1',
];

/** The five identities clusters use: two with static keys, two roles chained through the hub, one role on the controller's keys. */
interface Tenant {
  name: string;
  account: string;
  ref: IdentityReference;
  /** The role links its chain assumes. */
  roles: string[];
}
const staticTenant = (name: string, account: string): Tenant => ({ name, account, ref: staticRef(name), roles: [] });
const roleTenant = (name: string, account: string, viaHub: boolean): Tenant => ({
  name,
  account,
  ref: roleRef(name),
  roles: [...(viaHub ? [HUB_ROLE] : []), roleArn(account, `${name}-admin`)],
});
const TENANTS = [
  staticTenant('static-1', '210000000001'),
  staticTenant('static-2', '210000000002'),
  roleTenant('chained-1', '220000000001', true),
  roleTenant('chained-2', '220000000002', true),
  roleTenant('direct', '230000000001', false),
];
const CHAIN_LINKS = new Set(TENANTS.flatMap(({ roles }) => roles));

/** Cluster i: its tenant, its region, its one resource. */
const clusters = Array.from({ length: CLUSTERS }, (_, index) => {
  const tenant = TENANTS[index % TENANTS.length]!;
  const region = REGIONS[Math.floor(index / TENANTS.length) % REGIONS.length]!;
  const name = `cluster-${String(index).padStart(3, '0')}`;
  return { tenant, region, name, resource: clusterResources(tenant.account, region, name, 1)[0]! };
});

function world(): { accounts: AccountSpec[] } {
  const tenantAccount = (tenant: Tenant): AccountSpec => ({
    id: tenant.account,
    ...(tenant.roles.length === 0
      ? { users: [{ name: 'automation', accessKeys: [accessKey(`scale/${tenant.name}`)], allow: TAGGER }] }
      : {
          roles: [
            tenantRole(
              `${tenant.name}-admin`,
              tenant.roles.length > 1 ? HUB_ROLE : CONTROLLER_USER,
              `${tenant.name}-external-id`,
            ),
          ],
        }),
    resources: clusters.filter((cluster) => cluster.tenant === tenant).map(({ resource }) => resource),
  });
  return {
    accounts: [{ id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] }, ...TENANTS.map(tenantAccount)],
  };
}

function objects(): KubeObject[] {
  const identities = TENANTS.flatMap((tenant): KubeObject[] => {
    const allowed = { list: [tenant.name] };
    if (tenant.roles.length === 0)
      return [
        keysSecret(`${tenant.name}-keys`, accessKey(`scale/${tenant.name}`)),
        staticIdentity(tenant.name, `${tenant.name}-keys`, allowed),
      ];
    return [
      roleIdentity(tenant.name, {
        roleARN: tenant.roles.at(-1)!,
        externalID: `${tenant.name}-external-id`,
        ...(tenant.roles.length > 1 ? { sourceIdentityRef: roleRef('keymaster-hub') } : {}),
        allowedNamespaces: allowed,
      }),
    ];
  });
  const roleNamespaces = TENANTS.filter(({ roles }) => roles.length > 0).map(({ name }) => name);
  return [
    ...TENANTS.map(({ name }) => namespace(name)),
    controllerIdentity({ list: roleNamespaces }),
    roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: roleNamespaces } }),
    ...identities,
    tagPolicy([{ key: 'managed-by', value: 'keymaster' }]),
    ...clusters.map(({ tenant, region, name }) =>
      awsCluster(tenant.name, name, { region, identityRef: tenant.ref, additionalTags: { cluster: name } }),
    ),
  ];
}

describe(`scale smoke: ${CLUSTERS} clusters over ${TENANTS.length} identities`, function () {
  let scenario: Scenario;

  /** Waits until the AWSCluster controller has finished `count` more reconciles: resyncs have run. */
  async function reconciles(count: number): Promise<void> {
    const labels = { controller: 'awscluster', result: 'success' };
    const start = await scenario.controller.metric('controller_runtime_reconcile_total', labels);
    await eventually(
      async () =>
        expect(await scenario.controller.metric('controller_runtime_reconcile_total', labels)).to.be.at.least(
          start + count,
        ),
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }

  async function eventuallyAll(check: (cluster: AWSCluster) => boolean): Promise<void> {
    await eventually(async () => expect((await scenario.kube.clusters()).filter(check)).to.have.length(CLUSTERS), {
      timeoutMs: 90_000,
      intervalMs: 500,
    });
  }

  before(async function () {
    scenario = await startScenario({ world: world(), objects: objects(), syncPeriod: '3s' });
    await eventuallyAll(isReady);
  });

  after(stopScenarios);

  it('assumes each role of the chains once, whatever the number of clusters', async function () {
    const { aws } = scenario;
    expect(aws.count('sts:AssumeRole')).to.equal(CHAIN_LINKS.size);
    expect(aws.emulator.world.sessions().map(({ roleArn }) => roleArn)).to.have.members([...CHAIN_LINKS]);
    const byName = new Map((await scenario.kube.clusters()).map((cluster) => [cluster.metadata.name, cluster]));
    for (const { tenant, name, resource } of clusters) {
      const principal = byName.get(name)?.status?.principalARN ?? '';
      if (tenant.roles.length === 0) expect(principal, name).to.equal(userArn(tenant.account, 'automation'));
      else
        expect(principal, name).to.match(
          new RegExp(`^arn:aws:sts::${tenant.account}:assumed-role/${tenant.name}-admin/`),
        );
      expect(aws.tags(resource.arn), name).to.include({ 'managed-by': 'keymaster', cluster: name });
    }
  });

  it("counts in each identity's status its clusters and their namespaces (through chains too) and, when used directly, its account", async function () {
    const perTenant = CLUSTERS / TENANTS.length;
    const read = (kind: IdentityKind, name: string) => scenario.kube.identity<AWSClusterRoleIdentity>(kind, name);
    for (const tenant of TENANTS)
      await eventually(async () => {
        const { status } = await read(tenant.ref.kind, tenant.name);
        expect(status, tenant.name).to.include({
          clusterCount: perTenant,
          namespaceCount: 1,
          accountID: tenant.account,
        });
        if (tenant.roles.length > 0) expect(status?.lastAssumeRoleTime, tenant.name).to.be.a('string');
      });
    for (const [kind, name, count, namespaces] of [
      ['AWSClusterRoleIdentity', 'keymaster-hub', 2 * perTenant, 2],
      ['AWSClusterControllerIdentity', 'default', 3 * perTenant, 3],
    ] as const)
      await eventually(async () => {
        const { status } = await read(kind, name);
        expect(status, name).to.include({ clusterCount: count, namespaceCount: namespaces });
      });
  });

  it('wrote each status once and each ledger twice for the creation, and nothing on a resync that finds nothing new', async function () {
    const { aws, management } = scenario;
    await reconciles(CLUSTERS);
    expect(management.statusWrites(), 'status writes for the creation').to.equal(CLUSTERS);
    // Created with the claim, before the first AWS write; replaced with what AWS accepted and read back.
    expect(management.ledgerWrites(), 'ledger writes for the creation').to.equal(2 * CLUSTERS);

    aws.emulator.calls.reset();
    management.server.requests.reset();
    await reconciles(2 * CLUSTERS);
    // Clusters of one credential set and region that sync together may share one discovery scan.
    const groups = new Set(clusters.map(({ tenant, region }) => `${tenant.name}/${region}`)).size;
    expect(aws.count('tag:GetResources'), 'the resyncs looked at AWS').to.be.at.least(2 * groups);
    expect(aws.tagWrites(), 'AWS writes').to.equal(0);
    expect(aws.count('sts:AssumeRole'), 'AssumeRole').to.equal(0);
    expect(management.statusWrites(), 'status writes').to.equal(0);
    expect(management.ledgerWrites(), 'ledger writes').to.equal(0);
  });

  it('writes each status once when a change reaches every cluster', async function () {
    const { aws, management, kube } = scenario;
    aws.emulator.calls.reset();
    management.server.requests.reset();
    await kube.patch(tagPolicy([]), {
      spec: {
        resourceTags: [
          { key: 'managed-by', value: 'keymaster' },
          { key: 'cost-center', value: 'platform' },
        ],
      },
    });
    await eventuallyAll((cluster) => cluster.status?.tagging?.managedTags?.['cost-center'] === 'platform');
    await reconciles(CLUSTERS);
    for (const { resource } of clusters) expect(aws.tags(resource.arn)).to.include({ 'cost-center': 'platform' });
    expect(management.statusWrites(), 'status writes').to.equal(CLUSTERS);
    expect(management.ledgerWrites(), 'ledger writes: what each cluster remembers writing changed').to.equal(CLUSTERS);
    // At most one per cluster: clusters of one credential set and region share a call for the same change
    // (EC2's CreateTags, 1,000 IDs).
    expect(aws.count('ec2:CreateTags'), 'CreateTags')
      .to.be.at.most(CLUSTERS)
      .and.at.least(Math.ceil(CLUSTERS / 1000));
    expect(aws.count('tag:TagResources') + aws.count('tag:UntagResources') + aws.count('ec2:DeleteTags')).to.equal(0);
  });
});
