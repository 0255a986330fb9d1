import { AWS_BUDGETS } from '@keymaster/api';
import { TaggingInputError } from '../errors.js';
import { systemClock, type TaggingClock } from './clock.js';

export interface RateLimiterOptions {
  /** Requests per second when AWS does not push back. Default 5. */
  ratePerSecond?: number;
  /** Requests that may go at once after a quiet spell (the bucket's size). Default 10. */
  burst?: number;
  /** The lowest rate that backing off goes down to. Default 0.5 (one request every 2 s). */
  minRatePerSecond?: number;
  clock?: TaggingClock;
}

export interface RateLimiterStats {
  /** Requests let through. */
  granted: number;
  /** How long the requests let through waited for their tokens, in all, in milliseconds. */
  waitedMs: number;
  /** Throttling errors reported back. */
  throttled: number;
  /** Times the rate was cut: once per spell of throttling errors. */
  backoffs: number;
  /** The rate now: lower than the configured one while backing off. */
  ratePerSecond: number;
  /** The most requests let through within any one second: never more than burst + ratePerSecond. */
  peakPerSecond: number;
}

/** One request let through: when, and its place in line (give it to `throttled`). */
export interface Grant {
  at: number;
  sequence: number;
}

export const DEFAULT_MIN_RATE_PER_SECOND = 0.5;
/** A limiter given no budget keeps the strictest of AWS's tagging quotas, the writes'. */
const DEFAULT_BUDGET = AWS_BUDGETS.taggingWrites;

/**
 * A token bucket with adaptive backoff, for every request of one budget (an AWS account, region and
 * API family). Each request takes a token; tokens come back at the current rate, up to `burst` less
 * the requests still in flight (`inFlight`). A throttling error halves the rate and empties the bucket
 * (once per spell: errors of requests let through before the last cut say nothing new); every other
 * answer raises the rate by a twentieth of the configured one, up to it. Waiting requests go first
 * come, first served.
 */
export class RateLimiter {
  readonly maxRatePerSecond: number;
  readonly burst: number;
  readonly minRatePerSecond: number;
  readonly #clock: TaggingClock;
  #rate: number;
  #tokens: number;
  #updatedAt: number;
  /** The last request let through before the rate was last cut. */
  #cutAfter = 0;
  readonly #waiting: (() => void)[] = [];
  #pumping = false;
  /** Requests sent and not answered yet, and a wake-up for the pump when one is. */
  #inFlight = 0;
  #answered: (() => void) | undefined;
  #granted = 0;
  #waitedMs = 0;
  #throttled = 0;
  #backoffs = 0;
  /** When the requests of the last second were let through, for `peakPerSecond`. */
  #lastSecond: number[] = [];
  #peak = 0;

  constructor(options: RateLimiterOptions = {}) {
    const checked = checkLimiterOptions(options);
    this.maxRatePerSecond = checked.ratePerSecond;
    this.burst = checked.burst;
    this.minRatePerSecond = checked.minRatePerSecond;
    this.#clock = checked.clock;
    this.#rate = this.maxRatePerSecond;
    this.#tokens = this.burst;
    this.#updatedAt = this.#clock.now();
  }

  /** Waits for a token. */
  acquire(): Promise<Grant> {
    const asked = this.#clock.now();
    return new Promise((resolve) => {
      this.#waiting.push(() => resolve(this.#grant(asked)));
      void this.#pump();
    });
  }

  /**
   * Counts a request as in flight until its answer (or failure) is back. AWS counts a request when it
   * arrives: one held up on the way (a busy event loop, a slow network) must not find its room in the
   * bucket refilled behind it, so the bucket holds at most `burst` less the requests in flight.
   */
  async inFlight<T>(request: Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await request;
    } finally {
      this.#inFlight--;
      this.#answered?.();
    }
  }

  /** AWS throttled the request of `grant`: back off, unless this spell was already answered. */
  throttled(grant: Grant): void {
    this.#throttled++;
    if (grant.sequence <= this.#cutAfter) return;
    this.#refill();
    this.#cutAfter = this.#granted;
    this.#backoffs++;
    this.#rate = Math.max(this.minRatePerSecond, this.#rate / 2);
    this.#tokens = Math.min(this.#tokens, 0);
  }

  /** AWS answered without throttling: recover a step towards the configured rate. */
  succeeded(): void {
    this.#refill();
    this.#rate = Math.min(this.maxRatePerSecond, this.#rate + this.maxRatePerSecond / 20);
  }

  stats(): RateLimiterStats {
    return {
      granted: this.#granted,
      waitedMs: this.#waitedMs,
      throttled: this.#throttled,
      backoffs: this.#backoffs,
      ratePerSecond: this.#rate,
      peakPerSecond: this.#peak,
    };
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiting.length > 0) {
        this.#refill();
        if (this.#tokens >= 1) {
          this.#tokens -= 1;
          this.#waiting.shift()!();
        } else if (this.burst - this.#inFlight < 1) {
          // No room until an answer comes back: time alone would not make one.
          await new Promise<void>((resolve) => (this.#answered = resolve));
          this.#answered = undefined;
        } else {
          // Whole milliseconds, at least one: rounding can leave a token a hair short of 1.
          await this.#clock.sleep(Math.max(1, Math.ceil(((1 - this.#tokens) / this.#rate) * 1000)));
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  #refill(): void {
    const now = this.#clock.now();
    const room = this.burst - this.#inFlight;
    this.#tokens = Math.min(room, this.#tokens + ((now - this.#updatedAt) / 1000) * this.#rate);
    this.#updatedAt = now;
  }

  #grant(asked: number): Grant {
    const now = this.#clock.now();
    this.#granted++;
    this.#waitedMs += now - asked;
    this.#lastSecond = this.#lastSecond.filter((time) => time > now - 1000);
    this.#lastSecond.push(now);
    this.#peak = Math.max(this.#peak, this.#lastSecond.length);
    return { at: now, sequence: this.#granted };
  }
}

/** The options with their defaults; throws `TaggingInputError` naming a field out of bounds. */
export function checkLimiterOptions(options: RateLimiterOptions): Required<RateLimiterOptions> {
  const ratePerSecond = positive('ratePerSecond', options.ratePerSecond ?? DEFAULT_BUDGET.ratePerSecond);
  return {
    ratePerSecond,
    burst: positive('burst', options.burst ?? DEFAULT_BUDGET.burst, 1),
    minRatePerSecond: Math.min(
      positive('minRatePerSecond', options.minRatePerSecond ?? DEFAULT_MIN_RATE_PER_SECOND),
      ratePerSecond,
    ),
    clock: options.clock ?? systemClock,
  };
}

function positive(field: string, value: number, min = Number.MIN_VALUE): number {
  if (!Number.isFinite(value) || value < min) {
    throw new TaggingInputError(field, `is ${value}`, `Pass a number of at least ${min === 1 ? 1 : 'above 0'}.`);
  }
  return value;
}
