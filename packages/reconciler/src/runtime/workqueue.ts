import type { Clock } from './clock.js';
import type { RateLimiter } from './rate-limiter.js';

/** What the queue reports, for the `workqueue_*` metrics. */
export interface QueueObserver {
  added(): void;
  depth(depth: number): void;
  /** Seconds an item waited between being queued and handed to a worker. */
  waited(seconds: number): void;
  /** Seconds a worker held an item. */
  worked(seconds: number): void;
  retried(): void;
}

/** First in, first out, with an array's front dropped now and then rather than shifted at every take. */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T {
    const item = this.#items[this.#head]!;
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/**
 * A work queue with client-go's semantics: an item queued twice is processed once; an item is never
 * handed to two workers at once (re-added while processing, it is queued again when done);
 * delayed and rate-limited adds; after shutDown, new adds are ignored and what is queued is still
 * handed out, so that workers drain it. Items are handed out fairly between groups (`groupOf`: the
 * namespace of a key): each group with items queued takes its turn, first in first out within it, so
 * that a thousand items of one group queued first do not delay another group's one.
 */
export class WorkQueue<T> {
  /** The queued items of each group, and the groups with items, in turn. */
  readonly #groups = new Map<string, Fifo<T>>();
  readonly #turns = new Fifo<string>();
  #length = 0;
  readonly #dirty = new Set<T>();
  /** Items handed to a worker: when, and when they had been queued. */
  readonly #processing = new Map<T, { startedAt: number; queuedAt: number }>();
  readonly #queuedAt = new Map<T, number>();
  readonly #delayed = new Map<T, { readyAt: number; timer: unknown }>();
  readonly #waiting: ((item: T | undefined) => void)[] = [];
  readonly #idle: (() => void)[] = [];
  #shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    private readonly limiter: RateLimiter<T>,
    private readonly observer?: QueueObserver,
    private readonly groupOf: (item: T) => string = () => '',
  ) {}

  get length(): number {
    return this.#length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.observer?.added();
    this.#dirty.add(item);
    this.#queuedAt.set(item, this.clock.now());
    if (this.#processing.has(item)) return;
    this.#push(item);
  }

  /** Adds the item after a delay; of two delays for one item, the earlier wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const pending = this.#delayed.get(item);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    const timer = this.clock.setTimeout(() => {
      this.#delayed.delete(item);
      this.add(item);
    }, delayMs);
    this.#delayed.set(item, { readyAt, timer });
  }

  /** Adds the item when its rate limiter allows: per-item backoff and the overall bucket. */
  addRateLimited(item: T): void {
    this.observer?.retried();
    this.addAfter(item, this.limiter.when(item));
  }

  /** Clears the item's backoff, after it was processed successfully. */
  forget(item: T): void {
    this.limiter.forget(item);
  }

  retries(item: T): number {
    return this.limiter.retries(item);
  }

  /** The next item, waiting for one; undefined once shut down and empty. */
  get(): Promise<T | undefined> {
    if (this.length > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /**
   * When the item a worker holds was queued: its first add since it was last handed out. What the
   * world was like then is the least its reconcile must see.
   */
  queuedAt(item: T): number | undefined {
    return this.#processing.get(item)?.queuedAt;
  }

  /** Marks the item processed; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    const processing = this.#processing.get(item);
    if (processing !== undefined) this.observer?.worked((this.clock.now() - processing.startedAt) / 1000);
    this.#processing.delete(item);
    if (this.#dirty.has(item)) this.#push(item);
    if (this.#processing.size === 0 && this.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Stops taking adds, cancels delayed adds, and releases waiting workers. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { timer } of this.#delayed.values()) this.clock.clearTimeout(timer);
    this.#delayed.clear();
    if (this.length === 0) for (const resolve of this.#waiting.splice(0)) resolve(undefined);
  }

  /** Shuts down, then resolves when workers have finished what they hold. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0 && this.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #push(item: T): void {
    const waiter = this.#waiting.shift();
    if (waiter) {
      waiter(this.#start(item));
      return;
    }
    const group = this.groupOf(item);
    let items = this.#groups.get(group);
    if (!items) {
      items = new Fifo<T>();
      this.#groups.set(group, items);
      this.#turns.push(group);
    }
    items.push(item);
    this.#length += 1;
    this.observer?.depth(this.length);
  }

  /** The first item of the group whose turn it is; the group goes last in turn while it has more. */
  #take(): T {
    const group = this.#turns.shift();
    const items = this.#groups.get(group)!;
    const item = items.shift();
    if (items.length > 0) this.#turns.push(group);
    else this.#groups.delete(group);
    this.#length -= 1;
    this.observer?.depth(this.length);
    return this.#start(item);
  }

  #start(item: T): T {
    this.#dirty.delete(item);
    const now = this.clock.now();
    const queuedAt = this.#queuedAt.get(item) ?? now;
    this.observer?.waited((now - queuedAt) / 1000);
    this.#queuedAt.delete(item);
    this.#processing.set(item, { startedAt: now, queuedAt });
    return item;
  }
}
