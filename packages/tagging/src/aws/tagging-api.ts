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
import type { FinalizeRequestMiddleware, MiddlewareStack } from '@smithy/types';
import type { TaggingClock } from '../rate-limit/clock.js';
import type { Grant, RateLimiter } from '../rate-limit/rate-limiter.js';
import type { RateLimiters } from '../rate-limit/rate-limiters.js';
import { awsFailureOf, failureKind, type AwsFailure } from './codes.js';
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
    this.#limit(command, 'tag:GetResources', this.reads, grant);
    return this.#client.send(command);
  }

  tagResources(input: TagResourcesCommandInput, grant?: Grant) {
    const command = new TagResourcesCommand(input);
    this.#limit(command, 'tag:TagResources', this.writes, grant);
    return this.#client.send(command);
  }

  untagResources(input: UntagResourcesCommandInput, grant?: Grant) {
    const command = new UntagResourcesCommand(input);
    this.#limit(command, 'tag:UntagResources', this.writes, grant);
    return this.#client.send(command);
  }

  /**
   * Puts the rate limiter inside the SDK's retry loop, just before signing, so that every attempt
   * waits for a token (a signature is fresh when the request leaves) and reports whether AWS
   * throttled it, either the whole call or an ARN of `FailedResourcesMap`. `first` is a token already
   * taken for the first attempt (a batch waited for it while other calls joined).
   */
  #limit<I extends object, O extends object>(
    command: { middlewareStack: MiddlewareStack<I, O> },
    action: string,
    limiter: RateLimiter,
    first: Grant | undefined,
  ) {
    const requests = this.context.requests;
    let taken = first;
    const middleware: FinalizeRequestMiddleware<I, O> = (next) => async (args) => {
      const grant = taken ?? (await limiter.acquire());
      taken = undefined;
      requests[action] = (requests[action] ?? 0) + 1;
      let result;
      try {
        result = await limiter.inFlight(next(args));
      } catch (error) {
        report(limiter, grant, [awsFailureOf(error)]);
        throw error;
      }
      report(limiter, grant, failuresOf(result.output));
      return result;
    };
    command.middlewareStack.addRelativeTo(middleware, {
      relation: 'before',
      toMiddleware: 'httpSigningMiddleware',
      name: 'keymasterRateLimiter',
    });
  }
}

/** Tells the limiter how AWS answered: throttled (the whole call or any ARN), or not; no answer tells nothing. */
function report(limiter: RateLimiter, grant: Grant, failures: readonly AwsFailure[]): void {
  if (failures.some((failure) => failureKind(failure) === 'Throttled')) limiter.throttled(grant);
  else if (failures.every(({ status }) => status !== undefined)) limiter.succeeded();
}

/** The per-ARN failures of a TagResources / UntagResources answer. */
function failuresOf(output: unknown): AwsFailure[] {
  const failed = (output as { FailedResourcesMap?: Record<string, FailedResource> }).FailedResourcesMap ?? {};
  return Object.values(failed).map(resourceFailure);
}

interface FailedResource {
  StatusCode?: number;
  ErrorCode?: string;
  ErrorMessage?: string;
}

/** One entry of `FailedResourcesMap` as an `AwsFailure`. */
export function resourceFailure(entry: FailedResource): AwsFailure {
  return {
    code: entry.ErrorCode ?? 'Unknown',
    message: entry.ErrorMessage ?? '',
    ...(entry.StatusCode === undefined ? {} : { status: entry.StatusCode }),
  };
}
