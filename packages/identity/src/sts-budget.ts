import { KeymasterError } from '@keymaster/api';
import type { Clock } from './refreshing-credentials.js';

/** How many STS calls a namespace may make: `ratePerSecond` on average, `burst` at once. */
export interface StsRate {
  ratePerSecond: number;
  burst: number;
}

/** Calls reserved for one piece of work, made once `readyAt` has come. */
interface Reservation {
  calls: number;
  readyAt: number;
}

interface Bucket {
  /** Negative while reservations are waiting for the calls they took. */
  tokens: number;
  updatedAt: number;
  reservations: Map<string, Reservation>;
}

/** A reservation nobody came back for is dropped this long after it was due (its calls stay spent). */
const ABANDONED_AFTER_MS = 600_000;

/** The work needs STS calls its namespace's budget does not have yet: try again in `retryAfterMs`. */
export class StsRateLimitedError extends KeymasterError {
  constructor(
    readonly namespace: string,
    readonly retryAfterMs: number,
  ) {
    super(
      'ERR_KEYMASTER_STS_RATE_LIMITED',
      `namespace "${namespace}" has spent its STS budget for now: its next STS call may be made in ${(retryAfterMs / 1000).toFixed(1)} s`,
      {
        hint: 'The work is retried when the budget allows. A namespace that keeps waiting asks for more credential sets or renewals than its budget: let requests that ask alike share one set, renew at a higher renewAtPercent, or raise the budget.',
      },
    );
  }
}

/**
 * A token bucket of STS calls per namespace, so that no namespace spends the STS rate every tenant
 * shares (the controller's principal's). Work that needs calls takes them all at once; when the
 * bucket lacks them it gets a reservation and a wait instead, and, coming back after the wait, makes
 * its calls without taking again: waiting work is served in turn, and never more calls are made than
 * the bucket allows (`burst` at once, then `ratePerSecond`).
 */
export class StsBudget {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly rate: StsRate,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes `calls` for the work `key` of `namespace`: 0 when they may be made now, else how long to
   * wait (the calls are reserved: the work comes back after the wait with the same key).
   */
  reserve(namespace: string, key: string, calls: number): number {
    const now = this.clock();
    const bucket = this.#bucket(namespace, now);
    const reserved = bucket.reservations.get(key);
    if (reserved && now < reserved.readyAt) return reserved.readyAt - now;
    bucket.reservations.delete(key);
    const extra = calls - (reserved?.calls ?? 0);
    if (extra <= 0) return 0;
    bucket.tokens -= extra;
    if (bucket.tokens >= 0) return 0;
    const wait = Math.ceil((-bucket.tokens / this.rate.ratePerSecond) * 1000);
    bucket.reservations.set(key, { calls: extra, readyAt: now + wait });
    return wait;
  }

  /** Takes one call if the bucket has it now (no reservation): for renewals the SDK asks for by itself. */
  tryTake(namespace: string): boolean {
    const bucket = this.#bucket(namespace, this.clock());
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** The bucket of a namespace, refilled up to now, without the reservations nobody came back for. */
  #bucket(namespace: string, now: number): Bucket {
    let bucket = this.#buckets.get(namespace);
    if (!bucket) {
      bucket = { tokens: this.rate.burst, updatedAt: now, reservations: new Map() };
      this.#buckets.set(namespace, bucket);
    }
    const refill = ((now - bucket.updatedAt) / 1000) * this.rate.ratePerSecond;
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + refill);
    bucket.updatedAt = now;
    for (const [key, { readyAt }] of bucket.reservations)
      if (readyAt + ABANDONED_AFTER_MS < now) bucket.reservations.delete(key);
    return bucket;
  }
}
