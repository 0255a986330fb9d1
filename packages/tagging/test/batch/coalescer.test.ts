import { expect } from 'chai';
import { Coalescer, type SendBatch } from '../../src/batch/coalescer.js';
import { RateLimiter, type TaggingClock } from '../../src/index.js';
import { virtualClock } from '../support/virtual-clock.js';

/** A clock whose sleeps last until the test opens the gate: the limiter has no token until then. */
function gatedClock() {
  let now = 0;
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => (open = resolve));
  const clock: TaggingClock = {
    now: () => now,
    sleep: async (ms) => {
      await gate;
      now += ms;
    },
  };
  return {
    clock,
    /** Lets the limiter's tokens come, from now on. */
    open: () => {
      open();
      gate = Promise.resolve();
    },
  };
}

/** A send that records each call's ARNs and parts and answers every ARN with `answer(arn)`. */
function recorder(answer: (arn: string) => string = (arn) => `ok ${arn}`) {
  const calls: { arns: string[]; parts: string[][] }[] = [];
  const send: SendBatch<string> = (arns, _grant, parts) => {
    calls.push({ arns, parts: parts.map((part) => [...part]) });
    return Promise.resolve(new Map(arns.map((arn) => [arn, answer(arn)])));
  };
  return { calls, send };
}

const arns = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
/** Lets pending callbacks and timers run, as other reconciles' discovery answers would. */
const laterTick = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  it('merges submissions of one content that arrive while the first waits for a token, and answers each with its own ARNs', async () => {
    const { clock, open } = gatedClock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, clock });
    await limiter.acquire(); // the bucket is empty now
    const coalescer = new Coalescer<string>(20);
    const { calls, send } = recorder();

    const a = coalescer.submit('x', arns('a', 5), limiter, send);
    await laterTick();
    const b = coalescer.submit('x', arns('b', 5), limiter, send);
    await laterTick();
    const c = coalescer.submit('x', arns('c', 5), limiter, send);
    open();

    expect([...(await a).keys()]).to.deep.equal(arns('a', 5));
    expect([...(await b).entries()]).to.deep.equal(arns('b', 5).map((arn) => [arn, `ok ${arn}`]));
    expect([...(await c).keys()]).to.deep.equal(arns('c', 5));
    expect(calls).to.deep.equal([
      { arns: [...arns('a', 5), ...arns('b', 5), ...arns('c', 5)], parts: [arns('a', 5), arns('b', 5), arns('c', 5)] },
    ]);
    expect(limiter.stats().granted).to.equal(2);
  });

  it('never puts more than its capacity in one call: a submission spills into the next batch', async () => {
    const { clock, open } = gatedClock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, clock });
    await limiter.acquire();
    const coalescer = new Coalescer<string>(20);
    const { calls, send } = recorder();

    const a = coalescer.submit('x', arns('a', 15), limiter, send);
    const b = coalescer.submit('x', arns('b', 15), limiter, send);
    const c = coalescer.submit('x', arns('c', 12), limiter, send);
    open();
    const [answerA, answerB, answerC] = await Promise.all([a, b, c]);

    expect(calls.map((call) => call.arns.length)).to.deep.equal([20, 20, 2]);
    expect(calls[0]!.arns).to.deep.equal([...arns('a', 15), ...arns('b', 5)]);
    expect(calls[1]!.arns).to.deep.equal([...arns('b', 15).slice(5), ...arns('c', 10)]);
    expect([...answerA.keys()]).to.deep.equal(arns('a', 15));
    expect([...answerB.keys()]).to.deep.equal(arns('b', 15));
    expect([...answerC.keys()]).to.deep.equal(arns('c', 12));
  });

  it('keeps contents apart: different contents never share a call', async () => {
    const { clock, open } = gatedClock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, clock });
    await limiter.acquire();
    const coalescer = new Coalescer<string>(20);
    const { calls, send } = recorder();

    const pending = [
      coalescer.submit('team=a', ['r1', 'r2'], limiter, send),
      coalescer.submit('team=b', ['r3'], limiter, send),
      coalescer.submit('team=a', ['r4'], limiter, send),
    ];
    open();
    await Promise.all(pending);

    expect(calls.map((call) => call.arns)).to.deep.equal([['r1', 'r2', 'r4'], ['r3']]);
  });

  it('sends at once when the limiter has a token: a later submission does not wait to be merged', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 10, clock });
    const coalescer = new Coalescer<string>(20);
    const { calls, send } = recorder();

    await coalescer.submit('x', ['r1'], limiter, send);
    await coalescer.submit('x', ['r2'], limiter, send);

    expect(calls.map((call) => call.arns)).to.deep.equal([['r1'], ['r2']]);
    expect(clock.sleeps).to.deep.equal([]);
  });

  it('sends an ARN two submissions share once, and answers both', async () => {
    const { clock, open } = gatedClock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, clock });
    await limiter.acquire();
    const coalescer = new Coalescer<string>(3);
    const { calls, send } = recorder();

    const a = coalescer.submit('x', ['shared', 'a'], limiter, send);
    const b = coalescer.submit('x', ['shared', 'b'], limiter, send);
    open();

    expect([...(await a).keys()]).to.deep.equal(['shared', 'a']);
    expect([...(await b).keys()]).to.deep.equal(['shared', 'b']);
    expect(calls.map((call) => call.arns)).to.deep.equal([['shared', 'a', 'b']]);
  });

  it('leaves out of an answer the ARNs the call did not answer, and passes a failed call to every submission', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter({ burst: 10, clock });
    const coalescer = new Coalescer<string>(20);
    const partial: SendBatch<string> = (batch) => Promise.resolve(new Map([[batch[0]!, 'listed']]));
    expect([...(await coalescer.submit('x', ['r1', 'r2'], limiter, partial))]).to.deep.equal([['r1', 'listed']]);

    const broken: SendBatch<string> = () => Promise.reject(new Error('boom'));
    const both = [coalescer.submit('y', ['r1'], limiter, broken), coalescer.submit('y', ['r2'], limiter, broken)];
    const settled = await Promise.allSettled(both);
    expect(
      settled.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as Error).message : 'fulfilled')),
    ).to.deep.equal(['boom', 'boom']);
  });
});
