import { randomUUID } from 'node:crypto';
import { realClock, type Clock } from './clock.js';
import type { RuntimeMetrics } from './metrics.js';
import { defaultRateLimiter } from './rate-limiter.js';
import { WorkQueue } from './workqueue.js';
import { objectKey } from './object-key.js';

/** Which object to reconcile: `namespace/name`, or `name` for cluster-scoped objects. */
export interface Request {
  namespace?: string;
  name: string;
}

/** What a reconcile asks for next: nothing, a retry with backoff, or another look after a delay. */
export interface Result {
  requeue?: boolean;
  requeueAfterMs?: number;
}

/** What a reconcile knows of itself: its ID, and when its request was queued (default: now). */
export interface ReconcileContext {
  reconcileId: string;
  queuedAt?: number;
}

export type Reconciler = (request: Request, context: ReconcileContext) => Promise<Result | undefined>;

export const keyOf = (request: Request): string => (request.namespace ? objectKey(request) : request.name);

export function requestOf(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** --max-concurrent-reconciles: workers, each holding one key at a time. */
  workers: number;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Told about every reconcile error (the reconciler logs its own details). */
  onError?: (request: Request, error: unknown) => void;
  /**
   * Errors that are no failure (a write based on a stale read: 409, 404): retried like errors, but
   * counted as `requeue`, not in reconcile_errors_total, so that alerts on errors mean something.
   */
  isExpected?: (error: unknown) => boolean;
  /** Which requests this replica reconciles (--shards); others are not queued. Default: all. */
  owns?: (request: Request) => boolean;
}

/**
 * Workers that take keys from a work queue and reconcile them, like a controller-runtime
 * controller: an error retries the key with backoff, a requeueAfter comes back after the delay,
 * success forgets the key's backoff.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  readonly #options: ControllerOptions;
  readonly #clock: Clock;
  #workers: Promise<void>[] = [];

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    // Fair between namespaces: one namespace's thousand keys do not delay another's.
    this.queue = new WorkQueue(
      this.#clock,
      defaultRateLimiter(this.#clock),
      options.metrics?.queueObserver(options.name),
      (key) => requestOf(key).namespace ?? '',
    );
    options.metrics?.maxConcurrentReconciles.set({ controller: options.name }, options.workers);
    // Present from the start at 0, as controller-runtime has it, so that rate() and alerts see a series.
    options.metrics?.reconcileErrors.inc({ controller: options.name }, 0);
  }

  /** The reconcile as the workers run it (sharded: guarded), for a last one outside the queue. */
  get reconcile(): Reconciler {
    return this.#options.reconcile;
  }

  enqueue(request: Request): void {
    if (this.#options.owns?.(request) === false) return;
    this.queue.add(keyOf(request));
  }

  start(): void {
    this.#workers = Array.from({ length: this.#options.workers }, () => this.#work());
  }

  /** Stops taking keys, lets workers finish what is queued and in hand, and resolves when they have. */
  async stop(): Promise<void> {
    await this.queue.shutDownWithDrain();
    await Promise.all(this.#workers);
  }

  async #work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        await this.#reconcile(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  async #reconcile(key: string): Promise<void> {
    const { metrics, reconcile, onError } = this.#options;
    const labels = { controller: this.name };
    const request = requestOf(key);
    const startedAt = this.#clock.now();
    metrics?.activeWorkers.inc(labels);
    let result: string;
    try {
      const outcome = await reconcile(request, { reconcileId: randomUUID(), queuedAt: this.queue.queuedAt(key) });
      if (outcome?.requeueAfterMs !== undefined && outcome.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, outcome.requeueAfterMs);
        result = 'requeue_after';
      } else if (outcome?.requeue) {
        this.queue.addRateLimited(key);
        result = 'requeue';
      } else {
        this.queue.forget(key);
        result = 'success';
      }
    } catch (error) {
      const expected = this.#options.isExpected?.(error) === true;
      if (!expected) metrics?.reconcileErrors.inc(labels);
      onError?.(request, error);
      this.queue.addRateLimited(key);
      result = expected ? 'requeue' : 'error';
    } finally {
      metrics?.activeWorkers.dec(labels);
      metrics?.reconcileTime.observe(labels, (this.#clock.now() - startedAt) / 1000);
    }
    metrics?.reconcileTotal.inc({ ...labels, result });
  }
}
