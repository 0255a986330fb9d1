import { expect } from 'chai';
import { AWS_BUDGETS } from '@keymaster/api';
import { MAX_ARNS_PER_CALL } from '../../src/index.js';
import { ACCOUNT, clusterInstances, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const TAGGING_ACTIONS = ['tag:GetResources', 'tag:TagResources', 'tag:UntagResources'];
const COUNTS = [400, 350, 250];

/** 1,000 resources of the fixture cluster, 400 + 350 + 250 over the three regions. */
const thousand = () => REGIONS.flatMap((region, i) => clusterInstances(region, COUNTS[i]!));

const total = (numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0);
const throttledByAws = (h: Harness) =>
  total(TAGGING_ACTIONS.map((action) => h.aws.calls.summary().errors[action]?.ThrottledException ?? 0));

/** What every test here proves of the limiters, from their own accounting and the emulator's call log. */
function expectLimitersKept(h: Harness) {
  const stats = h.limiters.stats();
  // Every request AWS saw went through a limiter, and each limiter held to its family's budget.
  expect(total(TAGGING_ACTIONS.map((action) => h.calls(action)))).to.equal(h.granted());
  for (const { peakPerSecond, family } of stats)
    expect(peakPerSecond).to.be.at.most(AWS_BUDGETS[family].burst + AWS_BUDGETS[family].ratePerSecond);
  // Every throttling AWS answered was reported back to the limiter of its account and region.
  expect(total(stats.map(({ throttled }) => throttled))).to.equal(throttledByAws(h));
}

describe('reconcileTags under rate limits', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h.stop());

  it("converges 1,000 resources, ten times the writes' budget, within AWS's quotas: AWS throttles none", async () => {
    h = await startHarness(taggingWorld(thousand()), { realTime: true });
    expect(h.aws.quotas.list().settings).to.equal('aws');
    const result = await h.reconcile();

    expect(result.synced).to.equal(true);
    expect(result.status).to.include({ resourcesInSync: 1000, resourcesFailed: 0 });
    const writes = h.limiters.stats().filter(({ family }) => family === 'taggingWrites');
    // Each region needs past its burst of writes, so the limiters waited: the budget was the pace.
    for (const { granted, waitedMs } of writes) {
      expect(granted).to.be.above(AWS_BUDGETS.taggingWrites.burst * 2);
      expect(waitedMs).to.be.above(0);
    }
    expect(throttledByAws(h)).to.equal(0);
    expectLimitersKept(h);
  });

  it('converges when AWS throttles 20% of the calls, without exceeding the limiters', async () => {
    h = await startHarness(taggingWorld(thousand()));
    h.aws.faults.add({ action: 'tag:*', errorCode: 'ThrottledException', rate: 0.2 });
    const result = await h.reconcile({ retry: { maxAttempts: 12 } });

    expect(result.synced).to.equal(true);
    expect(result.status).to.include({ resourcesInSync: 1000, resourcesFailed: 0 });
    for (const tags of h.resources().values()) expect(tags).to.include(EFFECTIVE_VALUES);
    // A throttled call changes nothing, so the calls that went through are still the minimum.
    expect(h.succeeded('tag:TagResources')).to.equal(total(COUNTS.map((n) => Math.ceil(n / MAX_ARNS_PER_CALL))));
    expect(throttledByAws(h)).to.be.above(0);
    expectLimitersKept(h);
  });

  it('backs off when the account’s own token bucket runs dry, and converges', async () => {
    const [region] = REGIONS;
    h = await startHarness(taggingWorld(clusterInstances(region, 400)));
    // A bucket for every tagging call: 5 requests, refilled at 2 a second, below the limiters' 15 and 5.
    h.aws.faults.throttle({ action: 'tag:*', capacity: 5, refillPerSecond: 2 });
    const result = await h.reconcile({ regions: [region], retry: { maxAttempts: 12 } });

    expect(result.synced).to.equal(true);
    expect(h.succeeded('tag:TagResources')).to.equal(400 / MAX_ARNS_PER_CALL);
    for (const family of ['taggingReads', 'taggingWrites'] as const) {
      const { backoffs, throttled } = h.limiters.get(ACCOUNT, region, family).stats();
      expect(throttled, family).to.be.above(0);
      // The rate was cut, at most once per throttling error (once per spell).
      expect(backoffs, family).to.be.within(1, throttled);
    }
    expectLimitersKept(h);
  });

  it('shares one limiter per account and region between clusters', async () => {
    const second = 'analytics-prod';
    h = await startHarness(
      taggingWorld(
        REGIONS.flatMap((region) => [
          ...clusterInstances(region, 90),
          ...clusterInstances(region, 90, { from: 1000, clusterName: second }),
        ]),
      ),
    );
    const [first, other] = await Promise.all([h.reconcile(), h.reconcile({ clusterName: second })]);

    expect(first.synced && other.synced).to.equal(true);
    expect(first.status.resourcesDiscovered + other.status.resourcesDiscovered).to.equal(540);
    const budgets = h.limiters.stats().map(({ accountId, region, family }) => `${accountId}/${region}/${family}`);
    expect(budgets).to.have.members(
      REGIONS.flatMap((region) => [`${ACCOUNT}/${region}/taggingReads`, `${ACCOUNT}/${region}/taggingWrites`]),
    );
    const requests = [first, other].flatMap(({ requests }) => Object.values(requests));
    expect(h.granted()).to.equal(total(requests));
    expectLimitersKept(h);
  });

  it('lets the SDK’s own retries through the limiter too, each attempt counted', async () => {
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 20))), {
      sdkMaxAttempts: 3,
    });
    h.aws.faults.add({ action: 'tag:TagResources', errorCode: 'ThrottledException', count: 2 });
    const result = await h.reconcile();

    expect(result.synced).to.equal(true);
    expect(h.calls('tag:TagResources')).to.equal(3 + 2);
    expect(result.requests['tag:TagResources']).to.equal(3 + 2);
    expectLimitersKept(h);
  });
});
