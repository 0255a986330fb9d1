import { expect } from 'chai';
import type { AWSClusterRoleIdentity, AWSClusterStaticIdentity } from '@keymaster/api';
import {
  HUB_ROLE,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
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
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const TENANT_A_KEY = accessKey('crash/tenant-a');
const PER_TENANT = 12;
const REGIONS = ['us-west-2', 'eu-west-1'];
const WANTED = { 'managed-by': 'keymaster', 'cost-center': 'platform' };

const CLUSTERS = ['tenant-a', 'tenant-b'].flatMap((tenant) =>
  Array.from({ length: PER_TENANT }, (_, index) => {
    const account = tenant === 'tenant-a' ? TENANT_A : TENANT_B;
    const region = REGIONS[index % REGIONS.length]!;
    const name = `${tenant}-${index}`;
    return { tenant, name, account, region, resources: clusterResources(account, region, name, 3) };
  }),
);
const RESOURCES = CLUSTERS.flatMap(({ resources }) => resources);

describe('a controller killed mid-reconcile and restarted loses and duplicates nothing that matters', function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: TENANT_A,
            users: [{ name: 'tenant-a-automation', accessKeys: [TENANT_A_KEY], allow: TAGGER }],
            resources: CLUSTERS.filter(({ account }) => account === TENANT_A).flatMap(({ resources }) => resources),
          },
          {
            id: TENANT_B,
            roles: [tenantRole('tenant-b-admin', HUB_ROLE)],
            resources: CLUSTERS.filter(({ account }) => account === TENANT_B).flatMap(({ resources }) => resources),
          },
        ],
      },
      objects: [
        namespace('tenant-a'),
        namespace('tenant-b'),
        tagPolicy(Object.entries(WANTED).map(([key, value]) => ({ key, value }))),
        controllerIdentity({ list: ['tenant-b'] }),
        keysSecret('tenant-a-keys', TENANT_A_KEY),
        staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }),
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: ['tenant-b'] } }),
        roleIdentity('tenant-b', {
          roleARN: roleArn(TENANT_B, 'tenant-b-admin'),
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-b'] },
        }),
      ],
    });
  });

  after(stopScenarios);

  it('converges after a SIGKILL, with every resource tagged exactly once and every finalizer in place', async function () {
    const { aws, kube, management, controller } = scenario;
    // Slow tag writes, so that the kill finds some in flight; then the clusters arrive at the running controller.
    aws.emulator.faults.add({ action: 'tag:TagResources', latencyMs: 200 });
    await kube.create(
      ...CLUSTERS.map(({ tenant, name, region }) =>
        awsCluster(tenant, name, {
          region,
          identityRef: tenant === 'tenant-a' ? staticRef('tenant-a') : roleRef('tenant-b'),
        }),
      ),
    );
    const tagged = () =>
      RESOURCES.filter(({ arn }) => Object.entries(WANTED).every(([k, v]) => aws.tags(arn)[k] === v));
    await eventually(() => expect(tagged().length).to.be.greaterThan(0), { intervalMs: 10 });
    expect(await controller.stop('SIGKILL')).to.deep.equal({ code: null, signal: 'SIGKILL' });

    // The kill came mid-work: some clusters are not done, and the dead controller writes nothing more.
    expect(tagged().length, 'resources tagged before the kill').to.be.lessThan(RESOURCES.length);
    const notReady = (await kube.clusters()).filter((cluster) => !isReady(cluster));
    expect(notReady.length, 'clusters not yet Ready at the kill').to.be.greaterThan(0);

    await management.startController({ awsUrl: aws.emulator.url });
    await eventually(async () => {
      expect((await kube.clusters()).filter(isReady)).to.have.length(CLUSTERS.length);
    });
    expect(tagged()).to.have.length(RESOURCES.length);

    // No resource was tagged twice: the restarted controller read what the killed one had written.
    const writes = aws.calls(({ action, outcome }) => action === 'tag:TagResources' && outcome === 'success');
    const times = new Map<string, number>();
    for (const call of writes)
      for (const arn of call.detail?.['resourceArns'] as string[]) times.set(arn, (times.get(arn) ?? 0) + 1);
    expect([...times.keys()]).to.have.members(RESOURCES.map(({ arn }) => arn));
    expect(
      [...times.entries()].filter(([, count]) => count > 1),
      'resources tagged more than once',
    ).to.be.empty;

    for (const cluster of await kube.clusters()) {
      expect(cluster.metadata.finalizers, cluster.metadata.name).to.include('awscluster.infrastructure.keymaster.dev');
      expect(cluster.status?.tagging?.managedTags, cluster.metadata.name).to.deep.equal(WANTED);
    }
    for (const [kind, name] of [
      ['AWSClusterStaticIdentity', 'tenant-a'],
      ['AWSClusterRoleIdentity', 'tenant-b'],
      ['AWSClusterRoleIdentity', 'keymaster-hub'],
      ['AWSClusterControllerIdentity', 'default'],
    ] as const) {
      await eventually(async () => {
        const identity = await kube.read<AWSClusterStaticIdentity | AWSClusterRoleIdentity>({
          apiVersion: 'infrastructure.keymaster.dev/v1beta1',
          kind,
          metadata: { name },
        });
        expect(identity.metadata.finalizers, name).to.include('identity.infrastructure.keymaster.dev/in-use');
        expect(identity.status?.clusterCount, name).to.equal(PER_TENANT);
      });
    }
  });
});
