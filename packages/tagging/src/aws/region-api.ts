import type { ApiFamily } from '@keymaster/api';
import type { IdentitySession, SdkClient, SdkClientClass } from '@keymaster/identity';
import type { MiddlewareStack } from '@smithy/types';
import type { TaggingClock } from '../rate-limit/clock.js';
import type { Grant, RateLimiter } from '../rate-limit/rate-limiter.js';
import type { RateLimiters } from '../rate-limit/rate-limiters.js';
import { limitRequests } from './limit-requests.js';
import type { RetryPolicy } from './retry.js';

/**
 * What tagging needs of a cluster's session: its account, its cached clients per region, and the key
 * of its credential set, which lets clusters of the same credentials share calls (`SessionBatchers`).
 */
export type TaggingSession = Pick<IdentitySession, 'accountId' | 'client'> & Partial<Pick<IdentitySession, 'key'>>;

/** What every AWS call of one reconcile shares (`CallContext` adds the calls clusters share). */
export interface ApiContext {
  session: TaggingSession;
  limiters: RateLimiters;
  clock: TaggingClock;
  retry: RetryPolicy;
  /** Requests sent, by IAM action (`tag:TagResources`): every attempt counts, the SDK's own retries too. */
  requests: Record<string, number>;
}

/**
 * One AWS API in one region with the session's client, each request let through by the rate limiter
 * of its account, region and family: reads and writes have budgets of their own, as AWS's quotas do.
 */
export abstract class RegionApi<C extends SdkClient> {
  protected readonly client: C;
  /** The rate limiter of the API's reads in the account and region. */
  readonly reads: RateLimiter;
  /** The rate limiter of the API's writes in the account and region. */
  readonly writes: RateLimiter;

  constructor(
    private readonly context: ApiContext,
    readonly region: string,
    Client: SdkClientClass<C>,
    families: { reads: ApiFamily; writes: ApiFamily },
  ) {
    const { session, limiters } = context;
    this.client = session.client(Client, region);
    this.reads = limiters.get(session.accountId, region, families.reads);
    this.writes = limiters.get(session.accountId, region, families.writes);
  }

  get accountId(): string {
    return this.context.session.accountId;
  }

  /** Counts `command` as `action` and lets it through `limiter` (the first attempt with `grant`). */
  protected limit<I extends object, O extends object>(
    command: { middlewareStack: MiddlewareStack<I, O> },
    action: string,
    limiter: RateLimiter,
    grant: Grant | undefined,
  ): void {
    limitRequests(command, action, limiter, grant, this.context.requests);
  }
}
