import { expect } from 'chai';
import { TagScheduler, type TagSlot } from '../../src/awscluster/tag-scheduler.js';

const A: TagSlot = { accountId: '111111111111', region: 'eu-west-1' };
const B: TagSlot = { accountId: '222222222222', region: 'eu-west-1' };
const A2: TagSlot = { accountId: '111111111111', region: 'us-east-1' };

/** A scheduler whose jobs end when the test says, recording what started and what finished. */
function harness(options: { perSlot: number; maxRunning: number }) {
  let now = 0;
  const started: string[] = [];
  const finished: string[] = [];
  const depths = new Map<string, { queued: number; running: number }>();
  const waits: number[] = [];
  const ends = new Map<string, { resolve: (value: string) => void; reject: (error: unknown) => void }>();
  /** The signal each started job got, by start. */
  const signals: AbortSignal[] = [];
  /** How many jobs of its slot have yet to submit writes, as each started job can ask, by cluster@ticket. */
  const planning = new Map<string, () => number>();
  /** Each started job's release of its place, by cluster@ticket. */
  const releases = new Map<string, () => void>();
  const scheduler = new TagScheduler<string>({
    ...options,
    finished: (cluster) => finished.push(cluster),
    clock: { now: () => now },
    observer: {
      depth: (slot, queued, running) => depths.set(`${slot.accountId}/${slot.region}`, { queued, running }),
      waited: (seconds) => waits.push(seconds),
    },
  });
  const submit = (cluster: string, slot: TagSlot, ticket = 't1') =>
    scheduler.submit({
      cluster,
      slot,
      ticket,
      run: (signal, pending, release) =>
        new Promise<string>((resolve, reject) => {
          started.push(`${cluster}@${ticket}`);
          signals.push(signal);
          planning.set(`${cluster}@${ticket}`, pending);
          releases.set(`${cluster}@${ticket}`, release);
          ends.set(`${cluster}@${ticket}`, { resolve, reject });
        }),
    });
  /** Ends a running job and lets the scheduler see it. */
  const end = async (job: string, outcome = `done ${job}`) => {
    const handle = ends.get(job);
    if (!handle) throw new Error(`${job} is not running`);
    ends.delete(job);
    handle.resolve(outcome);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const fail = async (job: string, error: unknown) => {
    ends.get(job)!.reject(error);
    ends.delete(job);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    scheduler,
    started,
    signals,
    planning,
    releases,
    finished,
    depths,
    waits,
    submit,
    end,
    fail,
    running: () => [...ends.keys()],
    tick: (ms: number) => (now += ms),
  };
}

describe('TagScheduler', () => {
  it('takes the accounts and regions in turn, so a busy account delays no other', async () => {
    const h = harness({ perSlot: 10, maxRunning: 1 });
    for (const name of ['a1', 'a2', 'a3', 'a4']) h.submit(`ns/${name}`, A);
    h.submit('ns/b1', B);
    h.submit('ns/b2', B);
    h.submit('ns/c1', A2);
    for (const job of ['ns/a1@t1', 'ns/a2@t1', 'ns/b1@t1', 'ns/c1@t1', 'ns/a3@t1', 'ns/b2@t1']) await h.end(job);
    // One job per slot in turn, however long A's queue: A (queued first), B, A's other region, A, ...
    expect(h.started).to.deep.equal([
      'ns/a1@t1',
      'ns/a2@t1',
      'ns/b1@t1',
      'ns/c1@t1',
      'ns/a3@t1',
      'ns/b2@t1',
      'ns/a4@t1',
    ]);
  });

  it('runs up to perSlot jobs of one account and region at once, waiting on nothing but its own places', async () => {
    const h = harness({ perSlot: 3, maxRunning: 100 });
    for (let index = 0; index < 5; index++) h.submit(`ns/a${index}`, A);
    h.submit('ns/b0', B);
    expect(h.running()).to.deep.equal(['ns/a0@t1', 'ns/a1@t1', 'ns/a2@t1', 'ns/b0@t1']);
    expect(h.depths.get('111111111111/eu-west-1')).to.deep.equal({ queued: 2, running: 3 });
    expect(h.depths.get('222222222222/eu-west-1')).to.deep.equal({ queued: 0, running: 1 });
    await h.end('ns/a1@t1');
    expect(h.running()).to.deep.equal(['ns/a0@t1', 'ns/a2@t1', 'ns/b0@t1', 'ns/a3@t1']);
    expect(h.depths.get('111111111111/eu-west-1')).to.deep.equal({ queued: 1, running: 3 });
  });

  it("starts the next job of a slot when a running one gives its account's place up, within maxRunning, freeing no place twice", async () => {
    const h = harness({ perSlot: 1, maxRunning: 3 });
    for (let index = 0; index < 4; index++) h.submit(`ns/a${index}`, A);
    h.submit('ns/b0', B);
    expect(h.running()).to.deep.equal(['ns/a0@t1', 'ns/b0@t1']);
    // a0's writes are submitted: a1 plans while they wait on AWS, a0 still runs.
    h.releases.get('ns/a0@t1')!();
    h.releases.get('ns/a0@t1')!();
    expect(h.running()).to.deep.equal(['ns/a0@t1', 'ns/b0@t1', 'ns/a1@t1']);
    expect(h.depths.get('111111111111/eu-west-1')).to.deep.equal({ queued: 2, running: 1 });
    // a1's are too, but a0, b0 and a1 are maxRunning: a2 waits for one of them to end.
    h.releases.get('ns/a1@t1')!();
    expect(h.running()).to.deep.equal(['ns/a0@t1', 'ns/b0@t1', 'ns/a1@t1']);
    await h.end('ns/a0@t1');
    expect(h.running()).to.deep.equal(['ns/b0@t1', 'ns/a1@t1', 'ns/a2@t1']);
    expect(h.finished).to.deep.equal(['ns/a0']);
    // a1 gave its account's place up before: its end frees its place among maxRunning alone.
    await h.end('ns/a1@t1');
    expect(h.running()).to.deep.equal(['ns/b0@t1', 'ns/a2@t1']);
    expect(h.depths.get('111111111111/eu-west-1')).to.deep.equal({ queued: 1, running: 1 });
  });

  it('tells running work how many jobs of its account and region have yet to submit writes, itself included (discovery may scan for them)', async () => {
    const h = harness({ perSlot: 2, maxRunning: 10 });
    h.submit('ns/a0', A);
    const planning = h.planning.get('ns/a0@t1')!;
    expect(planning()).to.equal(1);
    for (let index = 1; index < 4; index++) h.submit(`ns/a${index}`, A);
    h.submit('ns/b0', B);
    expect(planning(), 'a0 and a1 run, a2 and a3 wait').to.equal(4);
    h.releases.get('ns/a0@t1')!();
    expect(planning(), 'a0 submitted its writes: a2 starts in its place').to.equal(3);
    await h.end('ns/a1@t1');
    expect(planning()).to.equal(2);
  });

  it("tells whether a cluster's work runs, until it ends even when cancelled (a shard given up waits for it)", async () => {
    const h = harness({ perSlot: 1, maxRunning: 1 });
    h.submit('ns/a', A);
    h.submit('ns/b', A);
    expect([h.scheduler.isRunning('ns/a'), h.scheduler.isRunning('ns/b')]).to.deep.equal([true, false]);
    h.scheduler.cancel('ns/a');
    expect(h.scheduler.isRunning('ns/a')).to.equal(true);
    await h.end('ns/a@t1');
    expect([h.scheduler.isRunning('ns/a'), h.scheduler.isRunning('ns/b')]).to.deep.equal([false, true]);
  });

  it('hands the outcome out once, to a reconcile on the same inputs, and tells when it is there', async () => {
    const h = harness({ perSlot: 2, maxRunning: 2 });
    h.submit('ns/a', A, 'spec-1');
    expect(h.scheduler.take('ns/a', 'spec-1'), 'not finished yet').to.equal(undefined);
    h.tick(1500);
    await h.end('ns/a@spec-1', 'tagged');
    expect(h.finished).to.deep.equal(['ns/a']);
    expect(h.scheduler.take('ns/a', 'spec-2'), 'other inputs').to.equal(undefined);
    expect(h.scheduler.take('ns/a', 'spec-1')).to.deep.equal({ outcome: 'tagged' });
    expect(h.scheduler.take('ns/a', 'spec-1'), 'taken already').to.equal(undefined);
    expect(h.waits).to.deep.equal([0]);
  });

  it('hands out what the work threw, for the reconcile to fail with', async () => {
    const h = harness({ perSlot: 1, maxRunning: 1 });
    h.submit('ns/a', A);
    const error = new Error('boom');
    await h.fail('ns/a@t1', error);
    expect(h.scheduler.take('ns/a', 't1')).to.deep.equal({ error });
  });

  it('never runs one cluster twice at once: newer work runs after the running one, whose result is dropped', async () => {
    const h = harness({ perSlot: 5, maxRunning: 5 });
    h.submit('ns/a', A, 'spec-1');
    h.submit('ns/a', A, 'spec-1');
    expect(h.started, 'the same inputs again: nothing new').to.deep.equal(['ns/a@spec-1']);
    h.submit('ns/a', A, 'spec-2');
    h.submit('ns/a', A, 'spec-3');
    expect(h.running()).to.deep.equal(['ns/a@spec-1']);
    await h.end('ns/a@spec-1');
    expect(h.finished, 'overtaken: nobody wants it').to.deep.equal([]);
    expect(h.scheduler.take('ns/a', 'spec-1')).to.equal(undefined);
    expect(h.running(), 'only the newest of the waiting work').to.deep.equal(['ns/a@spec-3']);
    await h.end('ns/a@spec-3');
    expect(h.finished).to.deep.equal(['ns/a']);
    expect(h.started).to.deep.equal(['ns/a@spec-1', 'ns/a@spec-3']);
  });

  it('replaces queued work by newer work in its place in line, also when the account changed', async () => {
    const h = harness({ perSlot: 1, maxRunning: 1 });
    h.submit('ns/x', A);
    h.submit('ns/a', A, 'spec-1');
    h.submit('ns/b', A);
    h.submit('ns/a', A, 'spec-2');
    await h.end('ns/x@t1');
    expect(h.running()).to.deep.equal(['ns/a@spec-2']);
    h.submit('ns/c', A);
    h.submit('ns/c', B, 'moved');
    expect(h.depths.get('222222222222/eu-west-1')).to.deep.equal({ queued: 1, running: 0 });
    await h.end('ns/a@spec-2');
    // B's turn came while A was full: c goes before b.
    await h.end('ns/c@moved');
    expect(h.started).to.deep.equal(['ns/x@t1', 'ns/a@spec-2', 'ns/c@moved', 'ns/b@t1']);
  });

  it('cancels: queued work never runs, running work ends unheard, and work submitted after runs after it', async () => {
    const h = harness({ perSlot: 1, maxRunning: 1 });
    h.submit('ns/a', A);
    h.submit('ns/b', A);
    h.scheduler.cancel('ns/b');
    h.scheduler.cancel('ns/a');
    expect(h.depths.get('111111111111/eu-west-1')).to.deep.equal({ queued: 0, running: 1 });
    h.submit('ns/a', A);
    await h.end('ns/a@t1');
    expect(h.finished, 'the cancelled run').to.deep.equal([]);
    expect(
      h.signals.map(({ aborted }) => aborted),
      'told to write nothing more',
    ).to.deep.equal([true, false]);
    expect(h.running(), 'the run after the cancel').to.deep.equal(['ns/a@t1']);
    await h.end('ns/a@t1');
    expect(h.finished).to.deep.equal(['ns/a']);
    expect(h.started).to.deep.equal(['ns/a@t1', 'ns/a@t1']);
    h.scheduler.cancel('ns/a');
    expect(h.scheduler.take('ns/a', 't1'), 'a cancel drops a finished result too').to.equal(undefined);
  });

  it('stops: drops what is queued, waits for what runs, and hands over the results no reconcile took', async () => {
    const h = harness({ perSlot: 1, maxRunning: 2 });
    h.submit('ns/a', A);
    h.submit('ns/b', A);
    h.submit('ns/d', B);
    h.scheduler.cancel('ns/d');
    let stopped: string[] | undefined;
    const stopping = h.scheduler.stop().then((left) => (stopped = left));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).to.equal(undefined);
    expect(h.signals[0]?.aborted, 'running work is told to write nothing more').to.equal(true);
    await h.end('ns/a@t1');
    await h.end('ns/d@t1');
    await stopping;
    // ns/a may have written before the abort reached it: its status is the caller's to write; ns/d was cancelled.
    expect(stopped).to.deep.equal(['ns/a']);
    expect(h.finished, 'the stopping controller is not asked to reconcile').to.deep.equal([]);
    expect(h.scheduler.take('ns/a', 't1')).to.deep.equal({ outcome: 'done ns/a@t1' });
    h.submit('ns/c', A);
    expect(h.started).to.deep.equal(['ns/a@t1', 'ns/d@t1']);
  });

  it('refuses a cap below 1', () => {
    expect(() => new TagScheduler({ perSlot: 0, maxRunning: 1, finished: () => {}, clock: { now: () => 0 } })).to.throw(
      RangeError,
      /perSlot is 0/,
    );
  });
});
