import type { ApiFamily } from '@keymaster/api';
import type { FailureKind } from '../../aws/codes.js';
import type { ApiContext } from '../../aws/region-api.js';
import type { ReadOutcome, WriteOutcome } from '../../batch/session-batchers.js';
import type { Grant, RateLimiter } from '../../rate-limit/rate-limiter.js';
import type { Write, WriteAction } from '../types.js';

/**
 * How Keymaster writes and reads back the tags of one AWS service's resources: its actions, how many
 * resources a call takes, and its calls in one region (`create`). The registry picks one per ARN.
 */
export interface TaggerKind {
  /** The registry's name for it: the ARN service it serves, or `default`. */
  readonly name: string;
  /** The IAM actions of its writes: setting tags, removing keys. */
  readonly actions: { readonly set: WriteAction; readonly remove: WriteAction };
  /** The IAM action that reads tags back, for messages. */
  readonly readAction: string;
  /** The most resources one write call takes. */
  readonly writeCapacity: number;
  /** The budget its writes spend (the benchmark prices them with it). */
  readonly writeFamily: ApiFamily;
  /** The most resources one read call asks for. */
  readonly readCapacity: number;
  /**
   * Whether its read can ask for the keys written alone (EC2's DescribeTags filters by key): a
   * read-back then carries a tag per key written rather than every tag of the resource, and reads of
   * other keys go in calls of their own.
   */
  readonly readsByKey: boolean;
  /**
   * Whether a removal can be made conditional on the value (EC2's DeleteTags with a value): the writes
   * then carry the values the plan expects, so that a value someone changed since is left alone.
   */
  readonly removesByValue: boolean;
  /**
   * The failures of a whole write that every resource of it shares (the account's throttling, AWS's
   * inside): the call is not sent again part by part for them.
   */
  readonly sharedFailures: ReadonlySet<FailureKind>;
  create(context: ApiContext, region: string): Tagger;
}

/** One service's tagging calls in one region, each let through by its family's rate limiter. */
export interface Tagger {
  readonly writes: RateLimiter;
  readonly reads: RateLimiter;
  /**
   * One write of `call` for `arns` (at most `writeCapacity`), the first attempt with `grant`: each
   * ARN's outcome. Throws when the whole call fails for a reason every ARN of it shares (or that it
   * cannot attribute).
   */
  write(call: Write, arns: string[], grant: Grant | undefined): Promise<Map<string, WriteOutcome>>;
  /**
   * The tags of `arns` (at most `readCapacity`), the first request with `grant`: those of `keys` at
   * least, only those when the kind `readsByKey`; an ARN the service did not list is absent. Throws
   * `AwsCallError` when the read keeps failing.
   */
  read(arns: string[], grant: Grant, keys: readonly string[]): Promise<Map<string, ReadOutcome>>;
}
