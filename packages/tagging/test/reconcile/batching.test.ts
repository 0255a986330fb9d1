import { expect } from 'chai';
import type { Budget } from '@keymaster/api';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import {
  RateLimiters,
  reconcileTags,
  SessionBatchers,
  type TaggingSession,
  type TagReconcileResult,
} from '../../src/index.js';
import { ACCOUNT, clusterInstances, instance, REGIONS, taggingWorld } from '../support/aws-world.js';
import {
  effectiveTags,
  emulatorClock,
  startHarness,
  staticSession,
  TAGGING_API_ONLY,
  type Harness,
} from '../support/harness.js';
import { virtualClock } from '../support/virtual-clock.js';

const [EAST] = REGIONS;
const CLUSTERS = 20;
const PER_CLUSTER = 5;
const names = (count: number) => Array.from({ length: count }, (_, i) => `cluster-${String(i).padStart(2, '0')}`);
/** `PER_CLUSTER` instances of each cluster, numbered apart. */
const fleet = (clusters: readonly string[]): ResourceSpec[] =>
  clusters.flatMap((clusterName, i) => clusterInstances(EAST, PER_CLUSTER, { clusterName, from: i * PER_CLUSTER }));
const arnsOf = (i: number) => Array.from({ length: PER_CLUSTER }, (_, j) => instance(EAST, i * PER_CLUSTER + j));

/** The AWSTagPolicy's cost-center, before and after the day-2 edit. */
const effective = (costCenter: string) =>
  effectiveTags([{ key: 'cost-center', value: costCenter }], { team: 'analytics' });

/** Limiters for the tests' first passes: AWS's budgets on the emulator's clock, so waits cost no real time. */
const plenty = (h: Harness) => new RateLimiters({ clock: emulatorClock(h.aws) });

const ONE_A_SECOND: Budget = { ratePerSecond: 1, burst: 1 };

/**
 * The day-2 pass: one write a second and by default one read, on the real clock, the writes' token taken
 * already, as it is when many clusters of an account sync together. Discovery takes the read token at
 * once; the writes wait for theirs, and the writes of the other clusters join them meanwhile.
 */
async function busy(reads = ONE_A_SECOND): Promise<RateLimiters> {
  const limiters = new RateLimiters({ budgets: { taggingReads: reads, taggingWrites: ONE_A_SECOND } });
  await limiters.get(ACCOUNT, EAST, 'taggingWrites').acquire();
  return limiters;
}

/** A static session of the credential set `key` (an IdentitySession's key: its identity chain). */
const sessionOf = (h: Harness, key: string): TaggingSession => ({ ...staticSession(h.aws.url, h.faults), key });

interface Pass {
  clusters: readonly string[];
  costCenter: string;
  session: (i: number) => TaggingSession;
  limiters: RateLimiters;
  batchers?: SessionBatchers;
}

/** Every cluster reconciled at once, each owning its name; results by cluster. */
const pass = ({ clusters, costCenter, session, limiters, batchers }: Pass) =>
  Promise.all(
    clusters.map((clusterName, i) =>
      reconcileTags({
        session: session(i),
        clusterName,
        regions: [EAST],
        effective: effective(costCenter),
        claim: { decide: () => Promise.resolve({ owner: true as const }) },
        limiters,
        ...(batchers ? { batchers } : {}),
        clock: virtualClock(),
        retry: { baseDelayMs: 0 },
        taggers: TAGGING_API_ONLY,
      }),
    ),
  );

/** A result without its request counts (shared calls count where they were sent). */
const exact = ({ requests: _requests, ...result }: TagReconcileResult) => result;

/** The ARNs of each TagResources request as Keymaster made it. */
const tagCalls = (h: Harness) =>
  h.faults.writes.filter(({ command }) => command === 'TagResourcesCommand').map(({ arns }) => arns);

describe('reconcileTags with shared calls (SessionBatchers)', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h.stop());

  /** The fleet tagged with cost-center 1000, the log reset. */
  async function dayOne(clusters: readonly string[], session: (i: number) => TaggingSession) {
    await pass({ clusters, costCenter: '1000', session, limiters: plenty(h) });
    h.aws.calls.reset();
    h.faults.writes.length = 0;
  }

  it('a policy edit on 20 clusters of one credential set takes ⌈100 / 20⌉ TagResources, one discovery scan and one read-back; each result is what it is alone', async () => {
    const clusters = names(CLUSTERS);
    // The same edit, unshared: the figures of docs/tagging.md's "before", and each cluster's exact result.
    h = await startHarness(taggingWorld(fleet(clusters)));
    const alone = sessionOf(h, 'chain-a');
    await dayOne(clusters, () => alone);
    const unshared = await pass({
      clusters,
      costCenter: '2000',
      session: () => alone,
      limiters: plenty(h),
    });
    expect(h.calls('tag:TagResources')).to.equal(CLUSTERS);
    expect(h.calls('tag:GetResources')).to.equal(4 * CLUSTERS);
    await h.stop();

    h = await startHarness(taggingWorld(fleet(clusters)));
    const shared = sessionOf(h, 'chain-a');
    await dayOne(clusters, () => shared);
    // A read every 6 s: the five writes, a second apart, are done before the read-backs' token comes.
    const limiters = await busy({ ratePerSecond: 1 / 6, burst: 1 });
    const results = await pass({
      clusters,
      costCenter: '2000',
      session: () => ({ ...shared }), // one credential set, a session object per cluster
      limiters,
      batchers: new SessionBatchers(),
    });

    // The emulator's call log: the fewest writes, one scan for every cluster's discovery (one page for
    // the 100 resources) and one read-back for the 100 ARNs.
    expect(h.calls('tag:TagResources')).to.equal(Math.ceil((CLUSTERS * PER_CLUSTER) / 20));
    expect(tagCalls(h).map((arns) => arns.length)).to.deep.equal([20, 20, 20, 20, 20]);
    expect(h.calls('tag:GetResources')).to.equal(2);
    for (const [arn, tags] of h.resources()) expect(tags, arn).to.include({ 'cost-center': '2000', team: 'analytics' });
    // Each cluster's result is exactly what it was without sharing: status, applied, failed, events.
    expect(results.map(exact)).to.deep.equal(unshared.map(exact));
    results.forEach((result, i) => {
      expect(result.synced).to.equal(true);
      expect(result.applied.map(({ arn }) => arn)).to.deep.equal(arnsOf(i));
      expect(result.status).to.include({ resourcesDiscovered: PER_CLUSTER, resourcesInSync: PER_CLUSTER });
    });
    // Requests count once, in the cluster that sent them: the sum is what AWS saw.
    const sent = results.reduce((sum, { requests }) => sum + (requests['tag:TagResources'] ?? 0), 0);
    expect(sent).to.equal(h.calls('tag:TagResources'));
  });

  it("shares the first tagging of 20 clusters too: no cluster's own tag rides along, so the writes are identical", async () => {
    const clusters = names(CLUSTERS);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const shared = sessionOf(h, 'chain-a');
    const results = await pass({
      clusters,
      costCenter: '1000',
      session: () => ({ ...shared }),
      limiters: await busy(),
      batchers: new SessionBatchers(),
    });
    expect(tagCalls(h).map((arns) => arns.length)).to.deep.equal([20, 20, 20, 20, 20]);
    expect(results.every(({ synced }) => synced)).to.equal(true);
  });

  it('says once, right before its writes are submitted, that it waits on AWS alone (a scheduler starts the next cluster then)', async () => {
    const [clusterName = ''] = names(1);
    h = await startHarness(taggingWorld(fleet([clusterName])));
    const told: number[] = [];
    const result = await reconcileTags({
      session: sessionOf(h, 'chain-a'),
      clusterName,
      regions: [EAST],
      effective: effective('1000'),
      claim: { decide: () => Promise.resolve({ owner: true as const }) },
      limiters: plenty(h),
      clock: virtualClock(),
      retry: { baseDelayMs: 0 },
      taggers: TAGGING_API_ONLY,
      writesSubmitted: () => told.push(tagCalls(h).length),
    });
    expect(told).to.deep.equal([0]);
    expect(tagCalls(h)).to.have.length(1);
    expect(result.synced).to.equal(true);
  });

  it('never lets clusters of different credential sets share a call', async () => {
    const clusters = names(4);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const chains = [sessionOf(h, 'chain-a'), sessionOf(h, 'chain-b')];
    const session = (i: number) => chains[i % 2]!;
    await dayOne(clusters, session);
    const results = await pass({
      clusters,
      costCenter: '2000',
      session,
      limiters: await busy(),
      batchers: new SessionBatchers(),
    });

    const chainOf = (arn: string) => Math.floor(Number.parseInt(arn.split('/i-')[1]!, 16) / PER_CLUSTER) % 2;
    expect(tagCalls(h)).to.have.length(2);
    for (const arns of tagCalls(h)) expect(new Set(arns.map(chainOf)).size, arns.join()).to.equal(1);
    expect(results.every(({ synced }) => synced)).to.equal(true);
  });

  it('tells a cluster of the ARNs AWS refused in a shared call, and no other cluster', async () => {
    const clusters = names(4);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const session = sessionOf(h, 'chain-a');
    await dayOne(clusters, () => session);
    const refused = arnsOf(2)[3]!;
    const denied = { StatusCode: 403, ErrorCode: 'AccessDeniedException', ErrorMessage: 'not allowed: ec2:CreateTags' };
    h.faults.fail([refused], denied);
    const results = await pass({
      clusters,
      costCenter: '2000',
      session: () => session,
      limiters: await busy(),
      batchers: new SessionBatchers(),
    });

    expect(tagCalls(h).map((arns) => arns.length)).to.deep.equal([20]);
    expect(results.map(({ failed }) => failed.map(({ arn, kind }) => [arn, kind]))).to.deep.equal([
      [],
      [],
      [[refused, 'AccessDenied']],
      [],
    ]);
    expect(results.map(({ synced }) => synced)).to.deep.equal([true, true, false, true]);
    expect(results[2]!.status).to.include({ resourcesInSync: PER_CLUSTER - 1, resourcesFailed: 1 });
    expect(results[2]!.events.map(({ reason }) => reason)).to.deep.equal(['TagsApplied', 'TaggingAccessDenied']);
  });

  it('sends a throttled shared call again as one call, and every cluster converges', async () => {
    const clusters = names(3);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const session = sessionOf(h, 'chain-a');
    await dayOne(clusters, () => session);
    h.aws.faults.add({ action: 'tag:TagResources', errorCode: 'ThrottledException', count: 1 });
    const results = await pass({
      clusters,
      costCenter: '2000',
      session: () => session,
      limiters: await busy(),
      batchers: new SessionBatchers(),
    });

    expect(tagCalls(h).map((arns) => arns.length)).to.deep.equal([15, 15]);
    expect(h.aws.calls.summary().errors['tag:TagResources']).to.deep.equal({ ThrottledException: 1 });
    expect(results.map(({ synced, failed }) => [synced, failed.length])).to.deep.equal([
      [true, 0],
      [true, 0],
      [true, 0],
    ]);
    for (const [arn, tags] of h.resources()) expect(tags, arn).to.include({ 'cost-center': '2000' });
  });

  it('sends a shared call that AWS refuses whole again cluster by cluster, so the refusal stays with its cause', async () => {
    const clusters = names(2);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const session = sessionOf(h, 'chain-a');
    await dayOne(clusters, () => session);
    // GetResources lists an ARN of cluster-00, tagged as its others are, that AWS refuses as malformed,
    // failing its whole call.
    const malformed = `arn:aws:ec2:${EAST}:not-an-account:instance/i-bad`;
    h.faults.ghosts({ [malformed]: h.resources().get(arnsOf(0)[0]!)! });
    const results = await pass({
      clusters,
      costCenter: '2000',
      session: () => session,
      limiters: await busy(),
      batchers: new SessionBatchers(),
    });

    // The shared call, then each cluster's part alone.
    const [sharedCall, ...apart] = tagCalls(h);
    expect(sharedCall).to.have.members([malformed, ...arnsOf(0), ...arnsOf(1)]);
    expect(apart.map((arns) => [...arns].sort())).to.have.deep.members([[...arnsOf(0), malformed].sort(), arnsOf(1)]);
    const [first, second] = results;
    expect(first!.failed.map(({ kind, code }) => [kind, code])).to.deep.equal(
      Array(6).fill(['Rejected', 'InvalidParameterException']),
    );
    expect(second!.synced).to.equal(true);
    expect(second!.failed).to.deep.equal([]);
  });
});
