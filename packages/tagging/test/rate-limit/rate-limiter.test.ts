import { expect } from 'chai';
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
  it('gives every caller the same limiter for an account and region, and another for another', () => {
    const limiters = new RateLimiters({ clock: virtualClock() });
    const east = limiters.get('111111111111', 'us-east-1');
    expect(limiters.get('111111111111', 'us-east-1')).to.equal(east);
    expect(limiters.get('111111111111', 'eu-west-1')).to.not.equal(east);
    expect(limiters.get('222222222222', 'us-east-1')).to.not.equal(east);
    expect(Object.keys(limiters.stats())).to.deep.equal([
      '111111111111/us-east-1',
      '111111111111/eu-west-1',
      '222222222222/us-east-1',
    ]);
  });

  it('checks its options when it is made, not at first use', () => {
    expect(() => new RateLimiters({ burst: 0 })).to.throw(TaggingInputError, /^burst: is 0/);
  });

  it('applies its options to every limiter it makes', () => {
    const limiters = new RateLimiters({ ratePerSecond: 3, burst: 7 });
    expect(limiters.get('111111111111', 'us-east-1')).to.include({ maxRatePerSecond: 3, burst: 7 });
  });
});
