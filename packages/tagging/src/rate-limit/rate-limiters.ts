import { checkLimiterOptions, RateLimiter, type RateLimiterOptions, type RateLimiterStats } from './rate-limiter.js';

/**
 * One rate limiter per AWS account and region, made on first use. Create one for the whole controller
 * and pass it to every `reconcileTags`: clusters that act in the same account then share its budget,
 * whichever identity they use, as AWS's own quotas are per account and region.
 */
export class RateLimiters {
  readonly #limiters = new Map<string, RateLimiter>();
  readonly #options: Required<RateLimiterOptions>;

  /** `options` apply to every limiter this registry makes; they are checked here, once. */
  constructor(options: RateLimiterOptions = {}) {
    this.#options = checkLimiterOptions(options);
  }

  get(accountId: string, region: string): RateLimiter {
    const key = `${accountId}/${region}`;
    let limiter = this.#limiters.get(key);
    if (limiter === undefined) {
      limiter = new RateLimiter(this.#options);
      this.#limiters.set(key, limiter);
    }
    return limiter;
  }

  /** Every limiter's figures, by `account/region`. */
  stats(): Record<string, RateLimiterStats> {
    return Object.fromEntries([...this.#limiters].map(([key, limiter]) => [key, limiter.stats()]));
  }
}
