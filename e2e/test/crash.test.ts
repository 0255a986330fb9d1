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

/** A batch of clusters, half per tenant, each with 3 resources in one of two regions. */
const batch = (label: string) =>
  ['tenant-a', 'tenant-b'].flatMap((tenant) =>
    Array.from({ length: PER_TENANT }, (_, index) => {
      const account = tenant === 'tenant-a' ? TENANT_A : TENANT_B;
      const region = REGIONS[index % REGIONS.length]!;
      const name = `${tenant}-${label}-${index}`;
      return { tenant, name, account, region, resources: clusterResources(account, region, name, 3) };
    }),
  );
type Batch = ReturnType<typeof batch>;
/** Created for the SIGKILL, then for the SIGTERM. */
const KILLED = batch('kill');
const TERMINATED = batch('term');
const ALL = [...KILLED, ...TERMINATED];

describe('a controller stopped mid-work (SIGKILL, SIGTERM) and restarted loses and duplicates nothing that matters', function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: TENANT_A,
            users: [{ name: 'tenant-a-automation', accessKeys: [TENANT_A_KEY], allow: TAGGER }],
            resources: ALL.filter(({ account }) => account === TENANT_A).flatMap(({ resources }) => resources),
          },
          {
            id: TENANT_B,
            roles: [tenantRole('tenant-b-admin', HUB_ROLE)],
            resources: ALL.filter(({ account }) => account === TENANT_B).flatMap(({ resources }) => resources),
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

  /** The batch's resources that carry the wanted tags. */
  const tagged = (clusters: Batch) =>
    clusters
      .flatMap(({ resources }) => resources)
      .filter(({ arn }) => Object.entries(WANTED).every(([key, value]) => scenario.aws.tags(arn)[key] === value));

  /**
   * Slows tag writes, and the read-back after them more, so that a stop at the first tag written finds
   * work in hand: the clusters whose writes are done wait a second in their read-back before their status;
   * creates the clusters; waits for the first tag written.
   */
  async function startWork(clusters: Batch): Promise<void> {
    scenario.aws.emulator.faults.add({ action: 'ec2:CreateTags', latencyMs: 200 });
    scenario.aws.emulator.faults.add({ action: 'ec2:DescribeTags', latencyMs: 1000 });
    await scenario.kube.create(
      ...clusters.map(({ tenant, name, region }) =>
        awsCluster(tenant, name, {
          region,
          identityRef: tenant === 'tenant-a' ? staticRef('tenant-a') : roleRef('tenant-b'),
        }),
      ),
    );
    await eventually(() => expect(tagged(clusters)).not.to.be.empty, { intervalMs: 10 });
  }

  /** Restarts the controller and waits until every cluster is Ready, each of their resources tagged exactly once. */
  async function restartAndConverge(clusters: Batch): Promise<void> {
    const { aws, kube, management } = scenario;
    aws.emulator.faults.clear();
    await management.startController({ awsUrl: aws.emulator.url });
    await kube.untilReady(clusters.length);
    // The instances are written with EC2's CreateTags, which names resource IDs.
    const writes = aws.calls(({ action, outcome }) => action === 'ec2:CreateTags' && outcome === 'success');
    const times = new Map<string, number>();
    for (const call of writes)
      for (const id of call.detail?.['resourceIds'] as string[]) times.set(id, (times.get(id) ?? 0) + 1);
    expect([...times.keys()]).to.have.members(
      clusters.flatMap(({ resources }) => resources.map(({ arn }) => arn.split('/').pop()!)),
    );
    expect(
      [...times.entries()].filter(([, count]) => count > 1),
      'resources tagged more than once',
    ).to.be.empty;
    for (const cluster of await kube.clusters())
      expect(cluster.metadata.finalizers, cluster.metadata.name).to.include('infrastructure.keymaster.dev/awscluster');
  }

  it('converges after a SIGKILL, with every resource tagged exactly once and every finalizer in place', async function () {
    const { kube, controller } = scenario;
    await startWork(KILLED);
    expect(await controller.stop('SIGKILL')).to.deep.equal({ code: null, signal: 'SIGKILL' });

    // The kill came mid-work: some clusters are not done, and the dead controller writes nothing more.
    // Not "some resources untagged": identical writes of one credential set and region go as one call
    // (held writes), so the first tag written may come with all of them.
    const notReady = (await kube.clusters()).filter((cluster) => !isReady(cluster));
    expect(notReady.length, 'clusters not yet Ready at the kill').to.be.greaterThan(0);

    await restartAndConverge(KILLED);
    for (const cluster of await kube.clusters())
      expect(cluster.status?.tagging?.managedTags, cluster.metadata.name).to.deep.equal(WANTED);
    for (const [kind, name] of [
      ['AWSClusterStaticIdentity', 'tenant-a'],
      ['AWSClusterRoleIdentity', 'tenant-b'],
      ['AWSClusterRoleIdentity', 'keymaster-hub'],
      ['AWSClusterControllerIdentity', 'default'],
    ] as const) {
      await eventually(async () => {
        const identity = await kube.identity<AWSClusterStaticIdentity | AWSClusterRoleIdentity>(kind, name);
        expect(identity.metadata.finalizers, name).to.include('infrastructure.keymaster.dev/identity-in-use');
        expect(identity.status?.clusterCount, name).to.equal(PER_TENANT);
      });
    }
  });

  it('on SIGTERM mid-work, finishes the reconciles in hand (no tags written without their status) and exits 0', async function () {
    const { kube, management } = scenario;
    await startWork(TERMINATED);
    // Work in hand at the stop. Not "some resources still untagged after it": the reconciles in hand
    // finish, and identical writes of one credential set and region go as one call (held writes).
    const names = new Set(TERMINATED.map(({ name }) => name));
    const inHand = (await kube.clusters())
      .filter(({ metadata }) => names.has(metadata.name!))
      .filter((c) => !isReady(c));
    expect(await management.controllers.at(-1)!.stop('SIGTERM')).to.deep.equal({ code: 0, signal: null });

    expect(inHand.length, 'clusters not yet Ready at the stop').to.be.greaterThan(0);
    for (const item of TERMINATED) {
      const cluster = await kube.cluster(item.tenant, item.name);
      if (tagged([item]).length > 0) expect(cluster.status?.tagging?.managedTags, item.name).to.deep.equal(WANTED);
    }
    await restartAndConverge(ALL);
  });
});
