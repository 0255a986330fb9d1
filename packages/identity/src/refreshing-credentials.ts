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

/**
 * When credentials obtained at `obtainedAt` are renewed for a request that asks at `renewAtPercent` of
 * their lifetime: never sooner than `floorMs` after they were obtained (a short session asked at 10 %
 * would otherwise cost a renewal every 90 s), and never later than the renewal window before expiry.
 */
export function renewalTime(obtainedAt: number, expiresAt: number, renewAtPercent: number, floorMs: number): number {
  const lifetime = expiresAt - obtainedAt;
  const asked = obtainedAt + (lifetime * renewAtPercent) / 100;
  return Math.min(Math.max(asked, obtainedAt + floorMs), expiresAt - refreshWindowMs(lifetime));
}

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/**
 * Credentials that renew themselves before they expire. Every caller shares one renewal (single
 * flight). When a renewal fails while the current credentials are still valid, they stay in use and
 * the renewal is retried with exponential backoff; only expired credentials make callers fail.
 * Callers without usable credentials share the failure until the backoff has passed: however many
 * clusters use a refused identity, AWS is asked once per step. When AWS refused the input itself (a
 * session policy too large) it is never asked again: the input is the set's, other input makes another set.
 *
 * `get()` is the controller asking (it has paid for the call, if one is due); `provider` is the AWS
 * SDK asking on its own, while a client is in use: such a renewal is made only when `admit` allows it
 * (an STS budget), and until then still-valid credentials stay in use.
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
    /** Whether the SDK may have credentials obtained now: undefined if so, else why not (thrown once they expired). */
    private readonly admit?: () => Error | undefined,
  ) {
    this.provider = Object.assign(() => this.#get(true), { memoized: true as const });
  }

  /** When the current credentials were obtained; undefined before the first renewal. */
  get renewedAt(): Date | undefined {
    return this.#current ? new Date(this.#obtainedAt) : undefined;
  }

  /** When the current credentials expire; undefined before the first renewal and for keys that never do. */
  get expiration(): Date | undefined {
    return this.#current?.expiration;
  }

  /** Increases with every renewal; pass it back to `invalidate` to say which credentials were refused. */
  get generation(): number {
    return this.#generation;
  }

  get(): Promise<AwsCredentialIdentity> {
    return this.#get(false);
  }

  /**
   * Whether `get()` now would obtain credentials (one call to the source): none yet, refused, within
   * the renewal window, or `force` (a renewal the caller wants sooner); never while a renewal is in
   * flight (callers join it) or a failed one is backing off.
   */
  wouldObtain(force = false): boolean {
    const now = this.clock();
    if (this.#renewal !== undefined || now < this.#retryAt) return false;
    const current = this.#current;
    return force || !current || this.#stale || this.#dueForRenewal(current, now);
  }

  /** Whether `get()` now would throw the last failure without a call: nothing usable, and backing off. */
  wouldFail(): boolean {
    const now = this.clock();
    if (this.#renewal !== undefined || this.#failure === undefined || now >= this.#retryAt) return false;
    const current = this.#current;
    return !(current && !this.#stale && this.#valid(current, now));
  }

  async #get(unprompted: boolean): Promise<AwsCredentialIdentity> {
    const now = this.clock();
    const current = this.#current;
    const usable = current !== undefined && !this.#stale && this.#valid(current, now);
    if (current && !this.#stale && !this.#dueForRenewal(current, now)) return current;
    if (usable && now < this.#retryAt) return current;
    if (this.#failure !== undefined && now < this.#retryAt) throw this.#failure;
    if (unprompted && this.#renewal === undefined) {
      const refusal = this.admit?.();
      if (refusal && usable) return current;
      if (refusal) throw refusal;
    }
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
