import type { Clock } from '../runtime/clock.js';

/** Whose tagging budget a cluster's tag work spends: one AWS account and region (a rate limiter's key). */
export interface TagSlot {
  accountId: string;
  region: string;
}

/** One cluster's tag work: `ticket` names its inputs, so that work on the same inputs is not done twice. */
export interface TagJob<T> {
  /** The cluster, namespace/name. */
  cluster: string;
  slot: TagSlot;
  ticket: string;
  /**
   * The work; `signal` is aborted when it is cancelled or the scheduler stops: then it should write
   * nothing more. `planning` tells how many jobs of its account and region have yet to submit their
   * writes (queued, or holding a place: itself included), when asked.
   * `release` gives its account and region's place up before it ends, once it only waits on AWS (its
   * writes are submitted): the next job there starts, and may join those writes.
   */
  run: (signal: AbortSignal, planning: () => number, release: () => void) => Promise<T>;
}

/** How a cluster's tag work ended: its outcome, or what it threw. */
export type TagResult<T> = { outcome: T } | { error: unknown };

/** What the scheduler reports, for the `keymaster_tag_work_*` metrics. */
export interface TagSchedulerObserver {
  /** Jobs of one account and region waiting, and running. */
  depth(slot: TagSlot, queued: number, running: number): void;
  /** Seconds a job waited between being queued and starting. */
  waited(seconds: number): void;
}

export interface TagSchedulerOptions {
  /**
   * Jobs holding a place at once per account and region (discovering and planning; a job gives its
   * place up once its writes are submitted): enough that its rate limiter, not this, is the throttle.
   */
  perSlot: number;
  /**
   * Jobs running at once in all, those that gave their account's place up included: bounds memory
   * and sockets whatever the number of accounts and clusters.
   */
  maxRunning: number;
  /** A cluster's work finished: its result waits in `take` (the AWSCluster controller enqueues the cluster). */
  finished: (cluster: string) => void;
  clock: Pick<Clock, 'now'>;
  observer?: TagSchedulerObserver;
}

export const DEFAULT_TAG_WORK_PER_SLOT = 20;
export const DEFAULT_TAG_WORK_RUNNING = 500;

interface Queued<T> extends TagJob<T> {
  queuedAt: number;
}

interface Slot<T> {
  slot: TagSlot;
  /** In arrival order; a newer job of a cluster takes its place in line. */
  queued: Map<string, Queued<T>>;
  running: number;
}

/** Where a cluster's work is: queued in a slot, running (and what runs after it), finished. */
interface ClusterWork<T> {
  queued?: Queued<T>;
  running?: Running;
  /** Newer work that arrived while `running` ran: queued when it ends, never beside it. */
  next?: Queued<T>;
}

interface Running {
  ticket: string;
  abort: AbortController;
  /** Cancelled (not only stopped): nobody wants its result. */
  cancelled?: boolean;
}

const slotKey = ({ accountId, region }: TagSlot) => `${accountId}/${region}`;

/**
 * Runs clusters' tag work outside the reconcile workers, a queue per AWS account and region. Tagging is
 * rate limited per account and region, so a worker that waited on a limiter would idle while other
 * accounts' budgets go unused; here each account and region runs up to `perSlot` jobs that wait on its
 * own limiter, and the slots take turns (round robin) for the `maxRunning` places, so a busy account
 * delays no other. A job whose writes are submitted gives its account's place up (`release`), not
 * its place among `maxRunning`: the clusters queued behind it then plan while its writes are held,
 * and identical writes of an account's clusters go in one call rather than one per place. A
 * cluster's work never runs twice at once: newer work replaces its queued work, or runs after its
 * running work. When work ends, `finished` is told, and the next reconcile of the cluster `take`s the
 * result and writes status as any reconcile does.
 */
export class TagScheduler<T> {
  readonly #options: TagSchedulerOptions;
  readonly #slots = new Map<string, Slot<T>>();
  /** Slots with queued work and a free place, in turn order (a Set keeps insertion order). */
  readonly #ready = new Set<string>();
  readonly #clusters = new Map<string, ClusterWork<T>>();
  readonly #finished = new Map<string, { ticket: string; result: TagResult<T> }>();
  readonly #inFlight = new Set<Promise<void>>();
  #running = 0;
  #stopped = false;

  constructor(options: TagSchedulerOptions) {
    for (const field of ['perSlot', 'maxRunning'] as const)
      if (!Number.isInteger(options[field]) || options[field] < 1)
        throw new RangeError(`TagScheduler ${field} is ${options[field]}: pass a whole number of at least 1`);
    this.#options = options;
  }

  /**
   * The result of the cluster's finished work on these inputs, handed out once; undefined when there
   * is none (a result on other inputs is stale: `submit` drops it).
   */
  take(cluster: string, ticket: string): TagResult<T> | undefined {
    const finished = this.#finished.get(cluster);
    if (finished?.ticket !== ticket) return undefined;
    this.#finished.delete(cluster);
    return finished.result;
  }

  /** Queues the cluster's work, unless work on the same inputs is already queued or running. */
  submit(job: TagJob<T>): void {
    if (this.#stopped) return;
    this.#finished.delete(job.cluster);
    const work = this.#clusters.get(job.cluster) ?? {};
    this.#clusters.set(job.cluster, work);
    const queued = { ...job, queuedAt: this.#options.clock.now() };
    if (work.running) {
      if (work.running.ticket === job.ticket && !work.running.abort.signal.aborted) delete work.next;
      else work.next = queued;
      return;
    }
    if (work.queued?.ticket === job.ticket && slotKey(work.queued.slot) === slotKey(job.slot)) return;
    // Replaced in place: the cluster keeps its turn (Map.set on a present key keeps its position).
    if (work.queued && slotKey(work.queued.slot) !== slotKey(job.slot)) this.#unqueue(work.queued);
    this.#enqueue(work, queued);
    this.#dispatch();
  }

  /** Drops the cluster's queued work and result; work running now ends unheard (deletion, revocation). */
  cancel(cluster: string): void {
    this.#finished.delete(cluster);
    const work = this.#clusters.get(cluster);
    if (!work) return;
    if (work.queued) this.#unqueue(work.queued);
    delete work.queued;
    delete work.next;
    if (work.running) {
      work.running.cancelled = true;
      work.running.abort.abort();
    } else this.#clusters.delete(cluster);
  }

  /** Whether the cluster's work runs now, cancelled or not (a shard given up keeps its Lease until it ends). */
  isRunning(cluster: string): boolean {
    return this.#clusters.get(cluster)?.running !== undefined;
  }

  /**
   * Drops what is queued, aborts what runs (the next leader does it again), and resolves when it has
   * ended, to the clusters whose results no reconcile took: work the abort reached after its writes
   * among them, whose status the caller writes before it goes.
   */
  async stop(): Promise<string[]> {
    this.#stopped = true;
    for (const slot of this.#slots.values()) {
      slot.queued.clear();
      this.#report(slot);
    }
    this.#ready.clear();
    for (const work of this.#clusters.values()) work.running?.abort.abort();
    await Promise.all(this.#inFlight);
    return [...this.#finished.keys()];
  }

  #enqueue(work: ClusterWork<T>, job: Queued<T>): void {
    const key = slotKey(job.slot);
    let slot = this.#slots.get(key);
    if (!slot) {
      slot = { slot: job.slot, queued: new Map(), running: 0 };
      this.#slots.set(key, slot);
    }
    work.queued = job;
    slot.queued.set(job.cluster, job);
    if (slot.running < this.#options.perSlot) this.#ready.add(key);
    this.#report(slot);
  }

  #unqueue(job: Queued<T>): void {
    const key = slotKey(job.slot);
    const slot = this.#slots.get(key);
    if (!slot) return;
    slot.queued.delete(job.cluster);
    if (slot.queued.size === 0) this.#ready.delete(key);
    this.#report(slot);
  }

  /** Starts work while places are free, one job per slot in turn. */
  #dispatch(): void {
    while (this.#running < this.#options.maxRunning) {
      const key = this.#ready.values().next().value;
      if (key === undefined) return;
      this.#ready.delete(key);
      const slot = this.#slots.get(key)!;
      const job = slot.queued.values().next().value;
      if (!job) continue;
      slot.queued.delete(job.cluster);
      // Back at the end of the line: the other slots go first.
      if (slot.queued.size > 0 && slot.running + 1 < this.#options.perSlot) this.#ready.add(key);
      this.#start(slot, job);
    }
  }

  #start(slot: Slot<T>, job: Queued<T>): void {
    const work = this.#clusters.get(job.cluster)!;
    delete work.queued;
    const running: Running = { ticket: job.ticket, abort: new AbortController() };
    work.running = running;
    slot.running += 1;
    this.#running += 1;
    this.#report(slot);
    const now = this.#options.clock.now();
    this.#options.observer?.waited((now - job.queuedAt) / 1000);
    let placeHeld = true;
    const leaveSlot = (): boolean => {
      if (!placeHeld) return false;
      placeHeld = false;
      slot.running -= 1;
      if (slot.queued.size > 0 && !this.#stopped) this.#ready.add(slotKey(slot.slot));
      this.#report(slot);
      return true;
    };
    const release = () => {
      if (leaveSlot()) this.#dispatch();
    };
    const done = job
      .run(running.abort.signal, () => slot.queued.size + slot.running, release)
      .then(
        (outcome): TagResult<T> => ({ outcome }),
        (error: unknown): TagResult<T> => ({ error }),
      )
      .then((result) => {
        this.#inFlight.delete(done);
        leaveSlot();
        this.#running -= 1;
        this.#ended(job, running, result);
      });
    this.#inFlight.add(done);
  }

  #ended(job: Queued<T>, running: Running, result: TagResult<T>): void {
    const work = this.#clusters.get(job.cluster)!;
    delete work.running;
    const { next } = work;
    delete work.next;
    if (next && !this.#stopped) this.#enqueue(work, next);
    else this.#clusters.delete(job.cluster);
    // A result overtaken by newer work, or cancelled, is dropped: nobody wants it. One the stop
    // aborted is kept: its writes may have been done, and `stop` hands it to the caller.
    if (!running.cancelled && !next) {
      this.#finished.set(job.cluster, { ticket: job.ticket, result });
      if (!this.#stopped) this.#options.finished(job.cluster);
    }
    this.#dispatch();
  }

  #report(slot: Slot<T>): void {
    this.#options.observer?.depth(slot.slot, slot.queued.size, slot.running);
  }
}
