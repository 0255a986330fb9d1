import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  TagResourcesCommand,
  UntagResourcesCommand,
  type GetResourcesCommandInput,
  type TagResourcesCommandInput,
  type UntagResourcesCommandInput,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { IdentitySession } from '@keymaster/identity';
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
 * The Resource Groups Tagging API in one region, each request let through by the rate limiter of its
 * account, region and family: reads and writes have budgets of their own, as AWS's quotas do.
 */
export class TaggingApi {
  readonly #client: ResourceGroupsTaggingAPIClient;
  /** The rate limiter of GetResources in the account and region. */
  readonly reads: RateLimiter;
  /** The rate limiter of TagResources and UntagResources in the account and region. */
  readonly writes: RateLimiter;

  constructor(
    private readonly context: ApiContext,
    readonly region: string,
  ) {
    const { session, limiters } = context;
    this.#client = session.client(ResourceGroupsTaggingAPIClient, region);
    this.reads = limiters.get(session.accountId, region, 'taggingReads');
    this.writes = limiters.get(session.accountId, region, 'taggingWrites');
  }

  get accountId(): string {
    return this.context.session.accountId;
  }

  getResources(input: GetResourcesCommandInput, grant?: Grant) {
    const command = new GetResourcesCommand(input);
    limitRequests(command, 'tag:GetResources', this.reads, grant, this.context.requests);
    return this.#client.send(command);
  }

  tagResources(input: TagResourcesCommandInput, grant?: Grant) {
    const command = new TagResourcesCommand(input);
    limitRequests(command, 'tag:TagResources', this.writes, grant, this.context.requests);
    return this.#client.send(command);
  }

  untagResources(input: UntagResourcesCommandInput, grant?: Grant) {
    const command = new UntagResourcesCommand(input);
    limitRequests(command, 'tag:UntagResources', this.writes, grant, this.context.requests);
    return this.#client.send(command);
  }
}
