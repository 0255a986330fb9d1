import { API_VERSION, type AWSCluster } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import {
  CONTROLLER_KEYS,
  TENANT_A_KEYS_SECRET,
  TENANT_KEYS,
  condition,
  eventually,
  startPlatform,
  staticTenantA,
  type Platform,
} from './harness.js';

const BUSY = '111111111111';
const OTHER = '222222222222';
/**
 * Account 111111111111 has many clusters of 150 instances each (1,800: a discovery of 18 pages, past
 * the tagging read budget's burst of 12); 222222222222 two of one. Both tag in us-west-2.
 */
const busyClusters = Array.from({ length: 12 }, (_, index) => `busy-${index}`);
const otherClusters = ['other-0', 'other-1'];
const BUSY_INSTANCES = 150;
const TAGGER = ['tag:*', 'ec2:CreateTags', 'ec2:DeleteTags', 'ec2:DescribeTags', 'sts:GetCallerIdentity'];

function schedulerWorld(): World {
  const resources = (account: string, clusters: string[], each: number) =>
    clusters.flatMap((cluster, index) =>
      Array.from({ length: each }, (_, instance) => ({
        arn: `arn:aws:ec2:us-west-2:${account}:instance/i-${String(index * each + instance).padStart(17, '0')}`,
        tags: { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${cluster}`]: 'owned' },
      })),
    );
  return {
    accounts: [
      {
        id: BUSY,
        users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: TAGGER }],
        resources: resources(BUSY, busyClusters, BUSY_INSTANCES),
      },
      {
        id: OTHER,
        users: [{ name: 'tenant-a', accessKeys: [TENANT_KEYS], allow: TAGGER }],
        resources: resources(OTHER, otherClusters, 1),
      },
    ],
  };
}

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const cluster = (ns: string, name: string, identityRef?: { kind: string; name: string }) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace: ns },
  // A tag of its own: no two clusters' writes are the same call.
  spec: { region: 'us-west-2', additionalTags: { team: ns, cluster: name }, ...(identityRef ? { identityRef } : {}) },
});

/** The ARNs of every CreateTags call (the instances' writes) the aws-emulator saw, a call's ARNs together. */
const writtenArns = (platform: Platform) =>
  platform.aws.calls
    .summary()
    .recent.filter(({ action }) => action === 'ec2:CreateTags')
    .flatMap(({ account, region, detail }) =>
      (detail?.['resourceIds'] as string[]).map((id) => `arn:aws:ec2:${region}:${account}:instance/${id}`),
    );

const isReady = async (platform: Platform, ns: string, name: string) => {
  const found: AWSCluster = await platform.cluster(ns, name);
  return condition(found, 'Ready')?.status === 'True';
};

describe('the tag scheduler, against both emulators', function () {
  this.timeout(120_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform(
      [
        namespace('a-busy'),
        namespace('b-other'),
        {
          apiVersion: API_VERSION,
          kind: 'AWSClusterControllerIdentity',
          metadata: { name: 'default' },
          spec: { allowedNamespaces: { list: ['a-busy'] } },
        },
        TENANT_A_KEYS_SECRET,
        staticTenantA({ list: ['b-other'] }),
        // Listed first (namespaces sort), the busy account's clusters reach the one worker first.
        ...busyClusters.map((name) => cluster('a-busy', name)),
        ...otherClusters.map((name) =>
          cluster('b-other', name, { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' }),
        ),
      ],
      // One worker, AWS's own tagging budgets (the defaults: reads 15 a second, 12 at once), EC2's writes
      // one a second (the busy account's 12 take 11 s) and no resync during the test.
      ['--max-concurrent-reconciles=1', '--sync-period=10m', '--aws-ec2-write-rate=1,1'],
      { world: schedulerWorld() },
    );
  });
  after(() => platform.stop());

  /** The busy account's CreateTags the aws-emulator saw. */
  const busyWrites = () =>
    platform.aws.calls.summary().recent.filter(({ action, account }) => action === 'ec2:CreateTags' && account === BUSY)
      .length;

  /** Tagging calls the aws-emulator saw, by account. */
  const taggingCalls = () => {
    const counts: Record<string, number> = {};
    for (const call of platform.aws.calls.summary().recent)
      if (call.service === 'tagging' || call.service === 'ec2')
        counts[call.account ?? ''] = (counts[call.account ?? ''] ?? 0) + 1;
    return counts;
  };

  it("tags another account's clusters while one account's budget is spent, with its one worker free", async () => {
    // The busy account's 12 CreateTags wait on its EC2 write budget, one a second.
    const callsWhenOthersReady = await eventually(async () => {
      const calls = taggingCalls();
      for (const name of otherClusters) expect(await isReady(platform, 'b-other', name), name).to.equal(true);
      return calls;
    }, 60_000);
    // 2 clusters x 5 calls, fewer when the two wait together and share a scan or a read-back.
    expect(callsWhenOthersReady[OTHER], 'the other account: at most 2 clusters x 5 calls').to.be.within(4, 10);
    // Tagged before the busy account's clusters were, not after all 12 of their writes.
    expect(busyWrites(), "the busy account's CreateTags by then").to.be.below(busyClusters.length);
    const busyReady = await Promise.all(busyClusters.map((name) => isReady(platform, 'a-busy', name)));
    expect(busyReady.filter(Boolean).length, 'busy clusters Ready by then').to.be.below(busyClusters.length);
  });

  it('then tags every cluster of the busy account, each once, with no requeue bounce', async () => {
    await eventually(async () => {
      for (const name of busyClusters) expect(await isReady(platform, 'a-busy', name), name).to.equal(true);
    }, 60_000);
    // Each resource written once, whichever clusters' writes shared a call.
    const written = writtenArns(platform);
    expect(written).to.have.length(busyClusters.length * BUSY_INSTANCES + otherClusters.length);
    expect(new Set(written).size, 'no resource written twice').to.equal(written.length);
    const reconciles = (await platform.controller.metrics.runtime.reconcileTotal.get()).values.filter(
      ({ labels }) => labels['controller'] === 'awscluster',
    );
    const bounces = reconciles.filter(({ labels }) => labels['result'] === 'requeue_after');
    expect(bounces.reduce((sum, { value }) => sum + value, 0)).to.equal(0);
  });

  it("keeps within AWS's quotas, which the aws-emulator enforces: the busy account's calls past its budgets waited, none was throttled", async () => {
    expect(platform.aws.quotas.list().settings).to.equal('aws');
    const stats = await platform.controller.metrics.awsBudgetRequests.get();
    const busy = (family: string) =>
      stats.values.find(({ labels }) => labels.account === BUSY && labels.family === family)?.value ?? 0;
    // 1,800 instances: more discovery reads than their budget's burst (12), so that budget sets the pace;
    // the instances' writes and read-backs go to EC2's own budgets.
    expect(busy('taggingReads')).to.be.above(12);
    expect(busy('ec2Writes') + busy('ec2Reads')).to.be.above(0);
    const waited = (await platform.controller.metrics.awsBudgetWait.get()).values.find(
      ({ labels }) => labels.account === BUSY && labels.family === 'taggingReads',
    );
    expect(waited?.value).to.be.above(0);
    const { errors } = platform.aws.calls.summary();
    const throttled = Object.values(errors).filter((codes) => 'ThrottledException' in codes);
    expect(throttled, JSON.stringify(errors)).to.deep.equal([]);
  });

  it('shows the queue per account and region, and the waits, in the metrics', async () => {
    const { metrics } = platform.controller;
    const series = async (gauge: typeof metrics.tagWorkQueued) =>
      Object.fromEntries(
        (await gauge.get()).values.map(({ labels, value }) => [`${labels.account}/${labels.region}`, value]),
      );
    expect(await series(metrics.tagWorkQueued)).to.deep.equal({ [`${BUSY}/us-west-2`]: 0, [`${OTHER}/us-west-2`]: 0 });
    expect(await series(metrics.tagWorkRunning)).to.deep.equal({ [`${BUSY}/us-west-2`]: 0, [`${OTHER}/us-west-2`]: 0 });
    const waits = (await metrics.tagWorkWait.get()).values.find(({ metricName }) => metricName?.endsWith('_count'));
    expect(waits?.value, 'one wait per cluster').to.equal(busyClusters.length + otherClusters.length);
  });
});

describe('the tag scheduler: a cluster deleted while its tag work runs', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform(
      [
        namespace('team'),
        {
          apiVersion: API_VERSION,
          kind: 'AWSClusterControllerIdentity',
          metadata: { name: 'default' },
          spec: { allowedNamespaces: { list: ['team'] } },
        },
      ],
      [],
      {
        world: {
          accounts: [
            {
              id: BUSY,
              users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: TAGGER }],
              resources: ['keep', 'gone'].map((name, index) => ({
                arn: `arn:aws:ec2:us-west-2:${BUSY}:instance/i-${String(index).padStart(17, '0')}`,
                tags: { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${name}`]: 'owned' },
              })),
            },
          ],
        },
      },
    );
  });
  after(() => platform.stop());

  it('writes nothing for it: the work is cancelled before its writes', async () => {
    // Discovery answers slowly, so that both clusters' work is running when one is deleted.
    platform.aws.faults.add({ action: 'tag:GetResources', latencyMs: 4000 });
    for (const name of ['keep', 'gone']) await platform.objects.create(cluster('team', name));
    const { metrics } = platform.controller;
    await eventually(async () => {
      const running = (await metrics.tagWorkRunning.get()).values.find(
        ({ labels }) => labels.account === BUSY && labels.region === 'us-west-2',
      );
      expect(running?.value).to.equal(2);
    });
    await platform.objects.delete(cluster('team', 'gone'));
    await eventually(async () => expect(await isReady(platform, 'team', 'keep')).to.equal(true), 30_000);
    const written = writtenArns(platform);
    expect(written, "only the remaining cluster's resource").to.deep.equal([
      `arn:aws:ec2:us-west-2:${BUSY}:instance/i-00000000000000000`,
    ]);
    const gone = platform.aws.world.listResources().find(({ arn }) => arn.endsWith('i-00000000000000001'));
    expect(gone?.tags).to.not.have.property('team');
  });
});
