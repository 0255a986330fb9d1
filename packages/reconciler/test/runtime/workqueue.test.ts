import { expect } from 'chai';
import { WorkQueue } from '../../src/runtime/workqueue.js';
import { BucketRateLimiter, ItemExponentialRateLimiter, defaultRateLimiter } from '../../src/runtime/rate-limiter.js';
import { FakeClock } from '../fake-clock.js';

const queue = (clock = new FakeClock()) => ({ clock, queue: new WorkQueue<string>(clock, defaultRateLimiter(clock)) });

describe('WorkQueue', () => {
  it('deduplicates items queued but not yet processed', async () => {
    const { queue: q } = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).to.equal(2);
    expect([await q.get(), await q.get()]).to.deep.equal(['a', 'b']);
  });

  it('never hands one item to two workers: re-added while processing, it waits until done', async () => {
    const { queue: q } = queue();
    q.add('a');
    const taken = await q.get();
    q.add('a');
    expect(q.length, 'not queued while processing').to.equal(0);
    let second: string | undefined;
    void q.get().then((item) => (second = item));
    await Promise.resolve();
    expect(second).to.equal(undefined);
    q.done(taken!);
    await Promise.resolve();
    expect(second).to.equal('a');
  });

  it('hands out items fairly between groups: one group’s thousand items queued first delay another’s one by a turn', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>(clock, defaultRateLimiter(clock), undefined, (item) => item.split('/')[0]!);
    for (let i = 0; i < 1_000; i += 1) q.add(`hostile/r-${i}`);
    q.add('tenant-b/reports');
    q.add('tenant-c/a');
    q.add('tenant-c/b');
    const first = await Promise.all(Array.from({ length: 6 }, () => q.get()));
    expect(first).to.deep.equal([
      'hostile/r-0',
      'tenant-b/reports',
      'tenant-c/a',
      'hostile/r-1',
      'tenant-c/b',
      'hostile/r-2',
    ]);
    expect(q.length).to.equal(997);
    // An item re-added while processing goes back to its group's end when done.
    q.add('tenant-b/reports');
    q.done('tenant-b/reports');
    expect(await q.get()).to.equal('hostile/r-3');
    expect(await q.get()).to.equal('tenant-b/reports');
  });

  it('tells when the item a worker holds was first queued: a second add while queued does not move it', async () => {
    const { clock, queue: q } = queue();
    q.add('a');
    clock.advance(300);
    q.add('a');
    clock.advance(200);
    const queuedAt = clock.now() - 500;
    const taken = await q.get();
    expect(q.queuedAt(taken!)).to.equal(queuedAt);
    q.add('a'); // while processing: its next turn was queued now
    const requeuedAt = clock.now();
    q.done(taken!);
    clock.advance(100);
    expect(q.queuedAt((await q.get())!)).to.equal(requeuedAt);
  });

  it('delays adds on the clock, and of two delays keeps the earlier', () => {
    const { clock, queue: q } = queue();
    q.addAfter('a', 1000);
    q.addAfter('a', 500);
    q.addAfter('a', 2000);
    clock.advance(499);
    expect(q.length).to.equal(0);
    clock.advance(1);
    expect(q.length).to.equal(1);
    clock.advance(5000);
    expect(q.length, 'the later delays were dropped').to.equal(1);
  });

  it('backs off exponentially per item, and forget resets it', () => {
    const limiter = new ItemExponentialRateLimiter<string>(5, 1_000_000);
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('b')]).to.deep.equal([5, 10, 20, 5]);
    expect(limiter.retries('a')).to.equal(3);
    limiter.forget('a');
    expect(limiter.when('a')).to.equal(5);
    for (let i = 0; i < 40; i += 1) limiter.when('c');
    expect(limiter.when('c'), 'capped at 1000 s').to.equal(1_000_000);
  });

  it('limits all retries together with a token bucket (10/s, burst 100)', () => {
    const clock = new FakeClock();
    const bucket = new BucketRateLimiter<string>(clock);
    const delays = Array.from({ length: 102 }, () => bucket.when());
    expect(delays.slice(0, 100).every((delay) => delay === 0)).to.equal(true);
    expect(delays[100]).to.be.closeTo(100, 1e-9);
    expect(delays[101]).to.be.closeTo(200, 1e-9);
    clock.advance(10_000);
    expect(bucket.when(), 'refilled').to.equal(0);
  });

  it('combines both: a rate-limited add waits for the longer of the two', () => {
    const { clock, queue: q } = queue();
    q.addRateLimited('a'); // 5 ms
    q.addRateLimited('a'); // would be 10 ms, but the earlier pending add wins
    clock.advance(5);
    expect(q.length).to.equal(1);
    expect(q.retries('a')).to.equal(2);
    q.forget('a');
    expect(q.retries('a')).to.equal(0);
  });

  it('after shutDown ignores adds, cancels delayed ones, hands out what is queued, then ends', async () => {
    const { clock, queue: q } = queue();
    q.add('a');
    q.addAfter('later', 100);
    q.shutDown();
    q.add('b');
    clock.advance(1000);
    expect(clock.pendingTimers).to.equal(0);
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal(undefined);
  });

  it('releases idle workers on shutDown', async () => {
    const { queue: q } = queue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).to.equal(undefined);
  });

  it('shutDownWithDrain resolves once the items being processed are done', async () => {
    const { queue: q } = queue();
    q.add('a');
    const item = await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).to.equal(false);
    q.done(item!);
    await drain;
    expect(drained).to.equal(true);
  });
});
