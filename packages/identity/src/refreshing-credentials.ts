import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { AwsCredentialError } from './errors.js';

export type Clock = () => number;

/** A provider the AWS SDK uses as it is: `memoized` tells the SDK not to wrap it in its own cache. */
export type SelfRefreshingProvider = AwsCredentialIdentityProvider & { memoized: true };

/**
 * How long before expiry a session is renewed: a tenth of its lifetime, between one and five
 * minutes (900 s sessions renew 90 s early, 3600 s and longer ones 5 minutes early, as the SDK does).
 */
export const refreshWindowMs = (lifetimeMs: number): number => Math.min(Math.max(lifetimeMs / 10, 60_000), 300_000);

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/**
 * Credentials that renew themselves before they expire. Every caller shares one renewal (single
 * flight). When a renewal fails while the current credentials are still valid, they stay in use and
 * the renewal is retried with exponential backoff; only expired credentials make callers fail.
 * Callers without usable credentials share the failure until the backoff has passed: however many
 * clusters use a refused identity, AWS is asked once per step. When AWS refused the input itself (a
 * session policy too large) it is never asked again: the input is the set's, other input makes another set.
 */
export class RefreshingCredentials {
  readonly provider: SelfRefreshingProvider;
  #current: AwsCredentialIdentity | undefined;
  #obtainedAt = 0;
  #generation = 0;
  #stale = false;
  #renewal: Promise<AwsCredentialIdentity> | undefined;
  #failures = 0;
  #retryAt = 0;
  #failure: Error | undefined;

  constructor(
    private readonly obtain: () => Promise<AwsCredentialIdentity>,
    private readonly clock: Clock,
  ) {
    this.provider = Object.assign(() => this.get(), { memoized: true as const });
  }

  /** When the current credentials were obtained; undefined before the first renewal. */
  get renewedAt(): Date | undefined {
    return this.#current ? new Date(this.#obtainedAt) : undefined;
  }

  /** Increases with every renewal; pass it back to `invalidate` to say which credentials were refused. */
  get generation(): number {
    return this.#generation;
  }

  async get(): Promise<AwsCredentialIdentity> {
    const now = this.clock();
    const current = this.#current;
    if (current && !this.#stale && !this.#dueForRenewal(current, now)) return current;
    if (current && !this.#stale && this.#valid(current, now) && now < this.#retryAt) return current;
    if (this.#failure !== undefined && now < this.#retryAt) throw this.#failure;
    this.#renewal ??= this.#renew().finally(() => (this.#renewal = undefined));
    return this.#renewal;
  }

  /**
   * Forces a renewal on the next `get` after AWS refused the credentials of `generation`
   * (ExpiredToken, InvalidClientTokenId). Stale reports of an older generation do nothing, so a
   * burst of failures causes one renewal, not a storm.
   */
  invalidate(generation: number): void {
    if (generation === this.#generation) this.#stale = true;
  }

  async #renew(): Promise<AwsCredentialIdentity> {
    const startedAt = this.clock();
    try {
      const fresh = await this.obtain();
      this.#current = fresh;
      this.#obtainedAt = startedAt;
      this.#generation += 1;
      this.#stale = false;
      this.#failures = 0;
      this.#retryAt = 0;
      this.#failure = undefined;
      return fresh;
    } catch (error) {
      this.#failure = error as Error;
      this.#failures += 1;
      this.#retryAt =
        error instanceof AwsCredentialError && error.inputRefused
          ? Infinity
          : this.clock() + Math.min(BACKOFF_BASE_MS * 2 ** (this.#failures - 1), BACKOFF_MAX_MS);
      const current = this.#current;
      if (current && !this.#stale && this.#valid(current, this.clock())) return current;
      throw error;
    }
  }

  #valid(credentials: AwsCredentialIdentity, now: number): boolean {
    return credentials.expiration === undefined || credentials.expiration.getTime() > now;
  }

  #dueForRenewal(credentials: AwsCredentialIdentity, now: number): boolean {
    if (credentials.expiration === undefined) return false;
    const expiresAt = credentials.expiration.getTime();
    return expiresAt - now <= refreshWindowMs(expiresAt - this.#obtainedAt);
  }
}
