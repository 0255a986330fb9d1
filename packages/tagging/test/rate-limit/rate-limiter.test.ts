import { expect } from 'chai';
import { AWS_BUDGETS } from '@keymaster/api';
import { RateLimiter, RateLimiters, TaggingInputError } from '../../src/index.js';
import { virtualClock } from '../support/virtual-clock.js';

/** Starts `count` acquires at once; resolves with their grants, in the order they were asked for. */
const acquireAll = (limiter: RateLimiter, count: number) =>
  Promise.all(Array.from({ length: count }, () => limiter.acquire()));
const times = (grants: { at: number }[], from = 0) => grants.map(({ at }) => at - from);

describe('RateLimiter', () => {
  it('lets a burst through at once, then one request per 1/rate seconds, first come first served', async () => {
    const clock = virtualClock(1_000);
    const limiter = new RateLimiter({ ratePerSecond: 4, burst: 3, clock });
    expect(times(await acquireAll(limiter, 6), 1_000)).to.deep.equal([0, 0, 0, 250, 500, 750]);
    expect(limiter.stats()).to.include({ granted: 6, throttled: 0, ratePerSecond: 4 });
  });

  it('never lets more than burst + rate requests through within any one second', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 7, burst: 5, clock });
    const granted = times(await acquireAll(limiter, 200));
    const mostInOneSecond = Math.max(
      ...granted.map((start) => granted.filter((t) => t >= start && t < start + 1000).length),
    );
    expect(mostInOneSecond).to.be.at.most(5 + 7);
    expect(limiter.stats().peakPerSecond).to.equal(mostInOneSecond);
    expect(limiter.stats().granted).to.equal(200);
  });

  it('refills while idle, but never beyond the burst', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 4, clock });
    await acquireAll(limiter, 4);
    clock.advance(60_000);
    expect(times(await acquireAll(limiter, 6), 60_000)).to.deep.equal([0, 0, 0, 0, 500, 1000]);
  });

  it('keeps the room of requests in flight: no refill lets more go until their answers are back', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 2, clock });
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    // Two requests sent and not answered: the bucket has no room, however long the wait.
    const [first, second] = await acquireAll(limiter, 2);
    const sent = [limiter.inFlight(held), limiter.inFlight(held)];
    let third: { at: number } | undefined;
    void limiter.acquire().then((grant) => (third = grant));
    clock.advance(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).to.equal(undefined);
    answer();
    await Promise.all(sent);
    await new Promise((resolve) => setImmediate(resolve));
    expect(third?.at).to.equal(60_000);
    expect([first!.at, second!.at]).to.deep.equal([0, 0]);
  });

  it('halves the rate and empties the bucket when AWS throttles, down to the minimum rate', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 8, burst: 8, minRatePerSecond: 1.5, clock });
    for (const expected of [4, 2, 1.5, 1.5]) {
      limiter.throttled(await limiter.acquire());
      expect(limiter.stats().ratePerSecond).to.equal(expected);
    }
    const before = clock.now();
    const next = await limiter.acquire();
    expect(next.at - before).to.equal(Math.ceil(1000 / 1.5));
    expect(limiter.stats().throttled).to.equal(4);
  });

  it('cuts once per spell: throttles of requests let through before the cut change nothing', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 10, clock });
    const inFlight = await acquireAll(limiter, 5);
    for (const grant of inFlight) limiter.throttled(grant);
    expect(limiter.stats()).to.include({ ratePerSecond: 5, throttled: 5 });
    const later = await limiter.acquire();
    limiter.throttled(later);
    expect(limiter.stats().ratePerSecond).to.equal(2.5);
  });

  it('recovers a twentieth of the configured rate per answer that was not throttled, up to it', async () => {
    const limiter = new RateLimiter({ ratePerSecond: 10, clock: virtualClock() });
    limiter.throttled(await limiter.acquire());
    expect(limiter.stats().ratePerSecond).to.equal(5);
    for (let i = 0; i < 3; i++) limiter.succeeded();
    expect(limiter.stats().ratePerSecond).to.equal(6.5);
    for (let i = 0; i < 30; i++) limiter.succeeded();
    expect(limiter.stats().ratePerSecond).to.equal(10);
  });

  it('refuses options out of bounds, naming the field', () => {
    for (const [options, field] of [
      [{ ratePerSecond: 0 }, 'ratePerSecond'],
      [{ burst: 0.5 }, 'burst'],
      [{ minRatePerSecond: -1 }, 'minRatePerSecond'],
      [{ ratePerSecond: Number.NaN }, 'ratePerSecond'],
    ] as const) {
      expect(() => new RateLimiter(options))
        .to.throw(TaggingInputError)
        .with.property('message')
        .that.matches(new RegExp(`^${field}: `));
    }
  });
});

describe('RateLimiters', () => {
  it('gives every caller the same limiter for an account, region and API family, and another for another', () => {
    const limiters = new RateLimiters({ clock: virtualClock() });
    const east = limiters.get('111111111111', 'us-east-1', 'taggingWrites');
    expect(limiters.get('111111111111', 'us-east-1', 'taggingWrites')).to.equal(east);
    expect(limiters.get('111111111111', 'us-east-1', 'taggingReads')).to.not.equal(east);
    expect(limiters.get('111111111111', 'eu-west-1', 'taggingWrites')).to.not.equal(east);
    expect(limiters.get('222222222222', 'us-east-1', 'taggingWrites')).to.not.equal(east);
    expect(limiters.stats().map(({ accountId, region, family }) => `${accountId}/${region}/${family}`)).to.deep.equal([
      '111111111111/us-east-1/taggingWrites',
      '111111111111/us-east-1/taggingReads',
      '111111111111/eu-west-1/taggingWrites',
      '222222222222/us-east-1/taggingWrites',
    ]);
  });

  it("keeps AWS's published quotas by default: reads 15 a second, writes 5, each a burst a fifth under a second's", () => {
    const limiters = new RateLimiters();
    expect(limiters.get('111111111111', 'us-east-1', 'taggingReads')).to.include({ maxRatePerSecond: 15, burst: 12 });
    expect(limiters.get('111111111111', 'us-east-1', 'taggingWrites')).to.include({ maxRatePerSecond: 5, burst: 4 });
    expect(AWS_BUDGETS).to.deep.include({
      taggingReads: { ratePerSecond: 15, burst: 12 },
      taggingWrites: { ratePerSecond: 5, burst: 4 },
    });
  });

  it("keeps EC2's request buckets by default: CreateTags and DeleteTags 10 a second, DescribeTags 20, each a burst a fifth under the bucket of 100", () => {
    const limiters = new RateLimiters();
    expect(limiters.get('111111111111', 'us-east-1', 'ec2Writes')).to.include({ maxRatePerSecond: 10, burst: 80 });
    expect(limiters.get('111111111111', 'us-east-1', 'ec2Reads')).to.include({ maxRatePerSecond: 20, burst: 80 });
    expect(Object.keys(AWS_BUDGETS)).to.have.members(['taggingReads', 'taggingWrites', 'ec2Writes', 'ec2Reads']);
  });

  it('applies a family’s own budget to its limiters only', () => {
    const limiters = new RateLimiters({ budgets: { taggingWrites: { ratePerSecond: 3, burst: 7 } } });
    expect(limiters.get('111111111111', 'us-east-1', 'taggingWrites')).to.include({ maxRatePerSecond: 3, burst: 7 });
    expect(limiters.get('111111111111', 'us-east-1', 'taggingReads')).to.include({ maxRatePerSecond: 15, burst: 12 });
  });

  it('checks its options when it is made, not at first use', () => {
    expect(() => new RateLimiters({ budgets: { taggingReads: { ratePerSecond: 1, burst: 0 } } })).to.throw(
      TaggingInputError,
      /^burst: is 0/,
    );
    expect(() => new RateLimiters({ budgets: { lambdaReads: { ratePerSecond: 1, burst: 1 } } as never })).to.throw(
      TaggingInputError,
      /^budgets\.lambdaReads: is not an API family/,
    );
  });

  it('counts the time requests waited for their tokens', async () => {
    const clock = virtualClock();
    const limiters = new RateLimiters({ budgets: { taggingWrites: { ratePerSecond: 2, burst: 1 } }, clock });
    // The first goes at once, the second waits 500 ms for the next token.
    await acquireAll(limiters.get('111111111111', 'us-east-1', 'taggingWrites'), 2);
    expect(limiters.stats()[0]).to.include({ family: 'taggingWrites', granted: 2, waitedMs: 500 });
  });
});
