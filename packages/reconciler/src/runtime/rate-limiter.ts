import type { Clock } from './clock.js';

/** client-go's RateLimiter: how long to wait before an item may be retried. */
export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  retries(item: T): number;
}

/** Per-item exponential backoff: base * 2^failures, capped (client-go: 5 ms to 1000 s). */
export class ItemExponentialRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(item: T): number {
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    return Math.min(this.baseMs * 2 ** failures, this.maxMs);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  retries(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** An overall token bucket shared by all items (client-go: 10 per second, burst 100). */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  #tokens: number;
  #updatedAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly perSecond = 10,
    private readonly burst = 100,
  ) {
    this.#tokens = burst;
    this.#updatedAt = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.perSecond);
    this.#updatedAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.perSecond) * 1000;
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The longest wait any of its limiters asks for (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    return Math.max(...this.#limiters.map((limiter) => limiter.when(item)));
  }

  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }

  retries(item: T): number {
    return Math.max(...this.#limiters.map((limiter) => limiter.retries(item)));
  }
}

/** controller-runtime's default: per-item exponential backoff combined with an overall token bucket. */
export const defaultRateLimiter = <T>(clock: Clock): RateLimiter<T> =>
  new MaxOfRateLimiter<T>(new ItemExponentialRateLimiter<T>(), new BucketRateLimiter<T>(clock));
