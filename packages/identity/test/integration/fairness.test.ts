import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import type { AWSCredentialsRequestSpec } from '@keymaster/api';
import { expect } from 'chai';
import type { IdentityResolver } from '../../src/index.js';
import {
  StsRateLimitedError,
  type IdentityResolverOptions,
  type NamespaceSets,
  type NarrowedRequest,
} from '../../src/index.js';
import { resolverOn, startHarness, tenantBWorkloads, type Harness } from './harness.js';

const STS_ACTIONS = ['sts:AssumeRole', 'sts:GetCallerIdentity'];

/** A request of tenant-b for `tenant-b-workloads`, narrowed to one action of its own (a distinct session per action). */
const request = (
  action: string,
  fields: Partial<AWSCredentialsRequestSpec> = {},
  holder?: string,
): NarrowedRequest => ({
  namespace: 'tenant-b',
  spec: {
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b-workloads' },
    statements: [{ effect: 'Allow', actions: [action], resources: ['*'] }],
    secretRef: { name: 'aws' },
    ...fields,
  },
  ...(holder ? { holder } : {}),
});
const TENANT_A_CLUSTER = {
  namespace: 'tenant-a',
  identityRef: { kind: 'AWSClusterRoleIdentity' as const, name: 'tenant-a-tagger' },
  region: 'us-west-2',
  holder: 'AWSCluster/tenant-a/payments',
};

describe('IdentityResolver: what one namespace may cost, against the aws-emulator', function () {
  this.timeout(60_000);
  let h: Harness;
  let resolver: IdentityResolver;
  let charged: Map<string, number>;
  let sets: Map<string, NamespaceSets>;

  const start = (options: Partial<IdentityResolverOptions> = {}) => {
    charged = new Map();
    sets = new Map();
    resolver = resolverOn(h.aws, h.platform, {
      observer: {
        stsCall: (_action, _outcome, _code, _requester, namespace) =>
          charged.set(namespace, (charged.get(namespace) ?? 0) + 1),
        credentialSets: (namespace, counts) => sets.set(namespace, counts),
      },
      ...options,
    });
  };
  const stsCalls = () => STS_ACTIONS.reduce((sum, action) => sum + h.calls(action), 0);
  /** The controller's time, moved by the test only (its sessions last an hour: the aws-emulator's time need not follow). */
  const manualClock = () => {
    const clock = { now: h.aws.clock.nowMs() };
    return Object.assign(clock, { read: () => clock.now });
  };

  beforeEach(async () => {
    h = await startHarness();
    h.platform.put(tenantBWorkloads());
  });
  afterEach(async () => {
    resolver.clear();
    h.resolver.clear();
    await h.aws.stop();
  });

  it('makes no STS call past a namespace’s budget: work waits its turn and is served, and another namespace never waits', async () => {
    const clock = manualClock();
    start({ stsRate: { ratePerSecond: 0.5, burst: 6 }, clock: clock.read });
    const began = clock.now;
    const pending = Array.from({ length: 12 }, (_, i) => request(`ec2:DescribeThing${i}`));
    let waits = 0;
    while (pending.length > 0) {
      const next = pending[0]!;
      try {
        await resolver.resolveNarrowed(next);
        pending.shift();
      } catch (error) {
        expect(error).to.be.instanceOf(StsRateLimitedError).with.property('namespace', 'tenant-b');
        waits += 1;
        // Tenant A's cluster is served at once all along: its namespace has a budget of its own.
        await resolver.resolve(TENANT_A_CLUSTER);
        clock.now += (error as StsRateLimitedError).retryAfterMs;
      }
      const elapsed = (clock.now - began) / 1000;
      expect(charged.get('tenant-b') ?? 0, `after ${elapsed} s`).to.be.at.most(6 + 0.5 * elapsed);
    }
    // The hub once, then an AssumeRole and a GetCallerIdentity per session: 25 calls, 6 at once then 2 every 4 s.
    expect(charged.get('tenant-b')).to.equal(25);
    expect(waits, 'two sessions in the burst, then each waits').to.equal(10);
    expect(charged.get('tenant-a'), 'an AssumeRole and a GetCallerIdentity').to.equal(2);
    expect(stsCalls()).to.equal(27);
  });

  it('says how long to wait before any call is made, and keeps the calls it reserved for that work', async () => {
    const clock = manualClock();
    start({ stsRate: { ratePerSecond: 1, burst: 3 }, clock: clock.read });
    await resolver.resolveNarrowed(request('ec2:DescribeA')); // hub, tenant-b-workloads, caller: 3 calls
    const before = stsCalls();
    let wait = 0;
    await resolver.resolveNarrowed(request('ec2:DescribeB')).catch((error: unknown) => {
      wait = (error as StsRateLimitedError).retryAfterMs;
    });
    expect(wait).to.equal(2_000);
    expect(stsCalls(), 'nothing called').to.equal(before);
    clock.now += 1_000;
    await resolver.resolveNarrowed(request('ec2:DescribeC')).catch(() => undefined);
    clock.now += 1_000;
    await resolver.resolveNarrowed(request('ec2:DescribeB'));
    expect(stsCalls() - before, 'B served in its turn, C still waiting behind it').to.equal(2);
  });

  it('charges nothing to resolves that share a refusal still backing off: an identity AWS refuses drains no budget', async () => {
    // The controller's time stands still: the refusal backs off all along (1 s), whatever the load.
    start({ stsRate: { ratePerSecond: 0.001, burst: 5 }, clock: manualClock().read });
    h.platform.edit(
      'AWSClusterRoleIdentity',
      'tenant-b',
      (identity) => ((identity.spec as { externalID?: string }).externalID = 'wrong'),
    );
    const cluster = {
      namespace: 'tenant-b',
      identityRef: { kind: 'AWSClusterRoleIdentity' as const, name: 'tenant-b' },
      region: 'us-west-2',
    };
    for (let i = 0; i < 20; i += 1) {
      const error = await resolver.resolve(cluster).catch((failure: unknown) => failure);
      expect(error).to.have.property('code', 'ERR_KEYMASTER_ASSUME_ROLE_FAILED');
    }
    expect(charged.get('tenant-b'), 'the hub, and tenant-b refused once').to.equal(2);
    // What is left of the burst serves the namespace's next session at once.
    await resolver.resolveNarrowed(request('tag:GetResources'));
    expect(charged.get('tenant-b')).to.equal(4);
  });

  it("lets one namespace's many sets evict none of another's: its next resolve costs no STS call", async () => {
    start({ maxUnpinnedSetsPerNamespace: 5 });
    await resolver.resolve(TENANT_A_CLUSTER);
    const kept = await resolver.resolveNarrowed(request('tag:GetResources', {}, 'AWSCredentialsRequest/tenant-b/kept'));
    for (let i = 0; i < 60; i += 1) await resolver.resolveNarrowed(request(`ec2:DescribeThing${i}`));
    expect(sets.get('tenant-b'), 'its pinned request, and 5 unpinned sets').to.deep.equal({ pinned: 1, unpinned: 5 });
    const before = stsCalls();
    await resolver.resolve(TENANT_A_CLUSTER);
    const again = await resolver.resolveNarrowed(
      request('tag:GetResources', {}, 'AWSCredentialsRequest/tenant-b/kept'),
    );
    expect(stsCalls() - before).to.equal(0);
    expect(again.credentials.accessKeyId).to.equal(kept.credentials.accessKeyId);
    expect(sets.get('tenant-a')).to.deep.equal({ pinned: 1, unpinned: 0 });
  });

  it('releases a request’s set when it is edited (a new session) or released, for its namespace to evict', async () => {
    start({ maxUnpinnedSetsPerNamespace: 5 });
    const holder = 'AWSCredentialsRequest/tenant-b/edited';
    await resolver.resolveNarrowed(request('ec2:DescribeFirst', {}, holder));
    await resolver.resolveNarrowed(request('ec2:DescribeSecond', {}, holder));
    expect(sets.get('tenant-b')).to.deep.equal({ pinned: 1, unpinned: 1 });
    for (let i = 0; i < 5; i += 1) await resolver.resolveNarrowed(request(`ec2:DescribeChurn${i}`));
    let before = h.calls('sts:AssumeRole');
    await resolver.resolveNarrowed(request('ec2:DescribeSecond', {}, holder));
    expect(h.calls('sts:AssumeRole') - before, 'the session it uses stayed').to.equal(0);
    await resolver.resolveNarrowed(request('ec2:DescribeFirst'));
    expect(h.calls('sts:AssumeRole') - before, 'the one it left was evicted').to.equal(1);

    resolver.release(holder);
    expect(sets.get('tenant-b')).to.deep.equal({ pinned: 0, unpinned: 5 });
    for (let i = 0; i < 3; i += 1) await resolver.resolveNarrowed(request(`ec2:DescribeMore${i}`));
    before = h.calls('sts:AssumeRole');
    await resolver.resolveNarrowed(request('ec2:DescribeSecond'));
    expect(h.calls('sts:AssumeRole') - before, 'released, then evicted').to.equal(1);
  });

  for (const { floor, minRenewalIntervalMs, renewals } of [
    { floor: 'the default 5 minute floor', minRenewalIntervalMs: undefined, renewals: 3 },
    { floor: 'no floor', minRenewalIntervalMs: 0, renewals: 10 },
  ])
    it(`renews a 900 s session asked at 10 % every ${renewals === 3 ? '300' : '90'} s with ${floor}`, async () => {
      start(minRenewalIntervalMs === undefined ? {} : { minRenewalIntervalMs });
      const short = request('tag:GetResources', { durationSeconds: 900, renewAtPercent: 10 });
      const first = await resolver.resolveNarrowed(short);
      expect((first.renewAt.getTime() - first.obtainedAt.getTime()) / 1000).to.be.closeTo(renewals === 3 ? 300 : 90, 5);
      const before = h.calls('sts:AssumeRole');
      for (let elapsed = 30; elapsed <= 900; elapsed += 30) {
        h.aws.clock.advance(30);
        const session = await resolver.resolveNarrowed(short);
        expect(session.renewAt.getTime(), 'always renewed before it expires').to.be.below(
          session.credentials.expiration!.getTime(),
        );
      }
      expect(h.calls('sts:AssumeRole') - before).to.equal(renewals);
    });

  it('charges a renewal the SDK asks for by itself to the namespace that used the set last, and keeps valid credentials while that budget is empty', async () => {
    start({ stsRate: { ratePerSecond: 0.0001, burst: 3 } });
    const session = await resolver.resolve({ ...TENANT_A_CLUSTER, namespace: 'tenant-b' }).catch(() => undefined);
    expect(session, 'tenant-a-tagger does not allow tenant-b').to.equal(undefined);
    const cluster = await resolver.resolve({
      namespace: 'tenant-b',
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
      region: 'us-west-2',
    });
    expect(charged.get('tenant-b'), 'hub, tenant-b, caller: the whole burst').to.equal(3);
    h.aws.clock.advance(3600 - 120); // inside the renewal window, still valid
    const before = stsCalls();
    const tagging = cluster.client(ResourceGroupsTaggingAPIClient);
    await tagging.send(new GetResourcesCommand({}));
    expect(stsCalls(), 'no renewal past the budget: the SDK went on with the valid credentials').to.equal(before);
    const refused = await resolver
      .resolve({
        namespace: 'tenant-b',
        identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
        region: 'us-west-2',
      })
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(StsRateLimitedError);
    expect(stsCalls()).to.equal(before);
  });
});
