import { TaggingInputError } from '../errors.js';
import type { TaggingClock } from '../rate-limit/clock.js';
import { awsFailureOf, failureKind, isRetriable } from './codes.js';

/** How often and how patiently Keymaster sends a request again when AWS throttles it or fails inside. */
export interface RetryPolicy {
  /** Attempts per request (or per ARN of a write), the first included. Default 4. */
  maxAttempts: number;
  /** The wait before the second attempt; it doubles for each further one. Default 500 ms. */
  baseDelayMs: number;
  /** The longest wait between two attempts. Default 10 s. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 10_000 };

export function retryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = {
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new TaggingInputError('retry.maxAttempts', `is ${policy.maxAttempts}`, 'Pass a whole number of at least 1.');
  }
  for (const field of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(policy[field]) || policy[field] < 0) {
      throw new TaggingInputError(`retry.${field}`, `is ${policy[field]}`, 'Pass a number of milliseconds, 0 or more.');
    }
  }
  return policy;
}

/** The wait after failed attempt `attempt` (1-based): exponential, capped, half of it random (jitter). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** Runs `call`, again after a backoff while it fails with an error a retry may fix, up to the policy's attempts. */
export async function retrying<T>(call: () => Promise<T>, policy: RetryPolicy, clock: TaggingClock): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= policy.maxAttempts || !isRetriable(failureKind(awsFailureOf(error)))) throw error;
      await clock.sleep(backoffMs(attempt, policy));
    }
  }
}
