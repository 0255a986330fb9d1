import { expect } from 'chai';
import type { SendBatch } from '../../src/batch/coalescer.js';
import type { ReadOutcome, WriteOutcome } from '../../src/batch/session-batchers.js';
import { RateLimiter, SessionBatchers, type TaggingClock, type TaggingSession } from '../../src/index.js';

/** A clock that moves only when the test says: a sleep ends once `advance` has passed its end. */
function manualClock() {
  let now = 0;
  const sleeping: { until: number; wake: () => void }[] = [];
  const clock: TaggingClock = {
    now: () => now,
    sleep: (ms) => new Promise<void>((wake) => sleeping.push({ until: now + ms, wake })),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const sleeper of sleeping.filter(({ until }) => until <= now)) {
      sleeping.splice(sleeping.indexOf(sleeper), 1);
      sleeper.wake();
    }
  };
  return { clock, advance };
}

const session = (key: string): TaggingSession => ({
  accountId: '111111111111',
  key,
  client: () => {
    throw new Error('no calls in this test');
  },
});
const REGION = 'eu-west-1';
const REJECTED = { code: 'InvalidParameterValue', message: 'refused' };
const arns = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
/** Lets pending callbacks run, `setImmediate`s included. */
const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * The writes of one credential set as apply makes them (`apply.ts` send): the scope in the content and
 * `joined` as the hold; a limiter with tokens to spare, so that only the hold makes a write wait.
 */
function writer(options: { capacity?: number; failing?: string } = {}) {
  const { clock, advance } = manualClock();
  const batchers = new SessionBatchers({ maxHoldMs: 1000, lingerMs: 200 });
  const limiter = new RateLimiter({ ratePerSecond: 10, burst: 80, clock });
  const calls: { arns: string[]; parts: string[][] }[] = [];
  const send: SendBatch<WriteOutcome> = (batch, _grant, parts) => {
    calls.push({ arns: batch, parts: parts.map((part) => [...part]) });
    return Promise.resolve(new Map(batch.map((arn) => [arn, arn === options.failing ? REJECTED : undefined])));
  };
  const submit = (key: string, own: readonly string[]) => {
    const scope = batchers.scope(session(key), REGION);
    return batchers
      .writes(options.capacity ?? 1000)
      .submit(JSON.stringify([scope, 'cost-center=2']), own, limiter, send, () => batchers.joined(scope, clock));
  };
  const coming = (key: string) => batchers.coming(session(key), [REGION]);
  /** Moves the clock on by `ms`, then lets what that woke run. */
  const after = async (ms: number) => {
    await settle();
    advance(ms);
    await settle();
  };
  return { calls, submit, coming, after };
}

/**
 * The read-backs of one credential set as verify makes them (`verify.ts` readBack): `answered` as the
 * hold; `writing` stands for a write of the scope submitted and not answered yet.
 */
function reader() {
  const { clock, advance } = manualClock();
  const batchers = new SessionBatchers({ maxHoldMs: 1000, lingerMs: 200 });
  const limiter = new RateLimiter({ ratePerSecond: 20, burst: 100, clock });
  const calls: string[][] = [];
  const send: SendBatch<ReadOutcome> = (batch) => {
    calls.push(batch);
    return Promise.resolve(new Map(batch.map((arn) => [arn, { tags: { owner: arn } }])));
  };
  const read = (key: string, own: readonly string[]) => {
    const scope = batchers.scope(session(key), REGION);
    return batchers
      .reads(200)
      .submit(JSON.stringify([scope, 'read', 'ec2']), own, limiter, send, () => batchers.answered(scope, clock));
  };
  const writing = (key: string) => batchers.writing(batchers.scope(session(key), REGION));
  const after = async (ms: number) => {
    await settle();
    advance(ms);
    await settle();
  };
  return { calls, read, writing, after };
}

describe('read-backs held for the writes on their way (SessionBatchers.answered)', () => {
  it("holds a read-back while another write of its scope waits for its answer: that cluster's read-back joins it", async () => {
    const { calls, read, writing } = reader();
    const other = writing('a');

    const first = read('a', ['a1', 'a2']);
    await settle();
    expect(calls).to.deep.equal([]);
    other();
    const second = read('a', ['b1']);
    const answers = await Promise.all([first, second]);

    expect(calls).to.deep.equal([['a1', 'a2', 'b1']]);
    expect(answers.map((answer) => [...answer.keys()])).to.deep.equal([['a1', 'a2'], ['b1']]);
  });

  it('reads back at once when no write of its scope is on its way', async () => {
    const { calls, read, writing } = reader();
    writing('a')();

    await read('a', ['a1']);
    expect(calls).to.deep.equal([['a1']]);
  });

  it('holds no read-back for longer than maxHoldMs: a write never answered delays it by that much', async () => {
    const { calls, read, writing, after } = reader();
    writing('a'); // never answered

    const held = read('a', ['a1']);
    await after(999);
    expect(calls).to.deep.equal([]);
    await after(1);
    await held;
    expect(calls).to.deep.equal([['a1']]);
  });

  it("is held by no other credential set's writes", async () => {
    const { calls, read, writing } = reader();
    writing('b');

    await read('a', ['a1']);
    expect(calls).to.deep.equal([['a1']]);
  });
});

describe('writes held for the clusters on their way (SessionBatchers.joined)', () => {
  it('holds a write until the last cluster on its way has submitted, and lingerMs more: one call, each answered for its own ARNs', async () => {
    const { calls, submit, coming, after } = writer({ failing: 'b1' });
    const clusters = [coming('a'), coming('a'), coming('a')];

    clusters[0]!();
    const first = submit('a', arns('a', 3));
    clusters[1]!();
    const second = submit('a', arns('b', 3));
    await after(500);
    expect(calls).to.deep.equal([]);

    clusters[2]!();
    const third = submit('a', arns('c', 3));
    await after(199);
    expect(calls).to.deep.equal([]);
    await after(1);
    const answers = await Promise.all([first, second, third]);

    expect(calls).to.deep.equal([
      { arns: [...arns('a', 3), ...arns('b', 3), ...arns('c', 3)], parts: [arns('a', 3), arns('b', 3), arns('c', 3)] },
    ]);
    expect(answers.map((answer) => [...answer.entries()].filter(([, failure]) => failure))).to.deep.equal([
      [],
      [['b1', REJECTED]],
      [],
    ]);
  });

  it('waits for a cluster that starts within lingerMs of the write', async () => {
    const { calls, submit, coming, after } = writer();

    const first = submit('a', ['r1']);
    await after(150);
    const late = coming('a');
    await after(600);
    expect(calls).to.deep.equal([]);
    late();
    const second = submit('a', ['r2']);
    await after(200);
    await Promise.all([first, second]);

    expect(calls.map((call) => call.arns)).to.deep.equal([['r1', 'r2']]);
  });

  it('sends a full call at once, though clusters are still on their way', async () => {
    const { calls, submit, coming, after } = writer({ capacity: 10 });
    const clusters = [coming('a'), coming('a'), coming('a')];

    clusters[0]!();
    const first = submit('a', arns('a', 6));
    clusters[1]!();
    const second = submit('a', arns('b', 6));
    await first;
    expect(calls.map((call) => call.arns)).to.deep.equal([[...arns('a', 6), ...arns('b', 4)]]);

    clusters[2]!();
    const third = submit('a', arns('c', 1));
    await after(200);
    await Promise.all([second, third]);
    expect(calls.map((call) => call.arns)).to.deep.equal([
      [...arns('a', 6), ...arns('b', 4)],
      [...arns('b', 6).slice(4), 'c0'],
    ]);
  });

  it('holds no write for longer than maxHoldMs: a cluster that never arrives delays the others by that much', async () => {
    const { calls, submit, coming, after } = writer();
    coming('a'); // never arrives
    const arrived = coming('a');

    arrived();
    const held = submit('a', ['r1']);
    await after(999);
    expect(calls).to.deep.equal([]);

    await after(1);
    await held;
    expect(calls.map((call) => call.arns)).to.deep.equal([['r1']]);
  });

  it('sends a lone write after lingerMs, and a write that comes after it in a call of its own', async () => {
    const { calls, submit, after } = writer();

    const first = submit('a', ['r1']);
    await after(199);
    expect(calls).to.deep.equal([]);
    await after(1);
    await first;
    const second = submit('a', ['r2']);
    await after(200);
    await second;

    expect(calls.map((call) => call.arns)).to.deep.equal([['r1'], ['r2']]);
  });

  it('never holds or merges across credential sets: another set on its way does not hold this one, nor joins its call', async () => {
    const { calls, submit, coming, after } = writer();
    const other = coming('b');
    const own = coming('a');

    own();
    const mine = submit('a', ['a1']);
    await after(200);
    await mine;
    expect(calls.map((call) => call.arns)).to.deep.equal([['a1']]);

    other();
    const theirs = submit('b', ['b1']);
    await after(200);
    await theirs;
    expect(calls.map((call) => call.arns)).to.deep.equal([['a1'], ['b1']]);
  });

  it('counts a cluster once whatever it calls', async () => {
    const { calls, submit, coming, after } = writer();
    const twice = coming('a');
    twice();
    twice();
    const waiting = coming('a');

    const held = submit('a', ['r1']);
    await after(900);
    expect(calls).to.deep.equal([]);
    waiting();
    await after(200);
    await held;
    expect(calls.map((call) => call.arns)).to.deep.equal([['r1']]);
  });
});
