import type { Clock } from './clock.js';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Token buckets per rule (a throttle rule, an AWS quota) and scope (account and region). They refill on
 * the emulator's clock, so a test can refill one by advancing the clock rather than waiting.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock) {}

  /** Takes one token; false when the bucket is empty. */
  take(rule: { id: string; capacity: number; refillPerSecond: number }, scope: string): boolean {
    const key = `${rule.id}|${scope}`;
    const now = this.clock.nowMs();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) this.#buckets.set(key, (bucket = { tokens: rule.capacity, updatedMs: now }));
    bucket.tokens = Math.min(rule.capacity, bucket.tokens + ((now - bucket.updatedMs) / 1000) * rule.refillPerSecond);
    bucket.updatedMs = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  forget(ruleId: string): void {
    for (const key of this.#buckets.keys()) if (key.startsWith(`${ruleId}|`)) this.#buckets.delete(key);
  }
}
