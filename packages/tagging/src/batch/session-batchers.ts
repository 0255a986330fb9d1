import type { AwsFailure } from '../aws/codes.js';
import type { TaggingSession } from '../aws/region-api.js';
import type { TaggingClock } from '../rate-limit/clock.js';
import { Arrivals } from './arrivals.js';
import { Coalescer } from './coalescer.js';
import { SharedDiscovery } from './shared-discovery.js';

/** A write's answer for one ARN: accepted (`undefined`), or AWS's failure. */
export type WriteOutcome = AwsFailure | undefined;

/** What reading one resource back gave: its tags, or why they could not be read. */
export type ReadOutcome = { tags: Record<string, string> } | { failure: AwsFailure };

/**
 * The longest a write waits for the clusters on their way to it (`joined`): their discovery and
 * planning, a few calls at most; a cluster that takes longer costs the others no more than this.
 */
export const DEFAULT_MAX_HOLD_MS = 1000;
/** How long a write waits for a cluster to start once none is on its way (`joined`). */
export const DEFAULT_LINGER_MS = 200;

/**
 * The calls that clusters may share, for the whole controller: create one beside its `RateLimiters`
 * and pass it to every `reconcileTags`. Clusters that use the same credentials (an `IdentitySession`'s
 * `key`: the same identity chain) in one region then share write and read-back calls of the same
 * content, up to the limit per call of the resources' tagger, and discovery when a scan is cheaper.
 * A write waits to be joined while other clusters of its scope are on their way to theirs
 * (`coming`), at most `maxHoldMs`: the clusters an edit runs together make one call of the change;
 * a read-back waits while writes of its scope wait for their answers (`writing`), at most as long:
 * their clusters read back in the same call.
 * Clusters of other credentials never share a call, even in the same account: a cluster's tags are
 * only ever written with its own credentials. A session without a `key` shares with itself only.
 * Only batches held or waiting for a token are kept: the memory follows the calls in flight, not the
 * fleet.
 */
export class SessionBatchers {
  readonly #writes = new Map<number, Coalescer<WriteOutcome>>();
  readonly #reads = new Map<number, Coalescer<ReadOutcome>>();
  /** Discovery: one scan for the clusters that want it, where it costs fewer calls than their queries. */
  readonly discovery: SharedDiscovery;
  readonly #keyless = new WeakMap<TaggingSession, number>();
  #nextKeyless = 0;
  readonly #arrivals = new Arrivals();
  /** Write submissions not answered yet: a read-back of their scope waits for them (`answered`). */
  readonly #unanswered = new Arrivals();
  readonly #maxHoldMs: number;
  readonly #lingerMs: number;

  /**
   * `maxScanBytes`: what discovery's scans may keep in all (default `DEFAULT_SCAN_BYTES`, 64 MiB);
   * `maxHoldMs`: the longest a write waits to be joined (default `DEFAULT_MAX_HOLD_MS`).
   */
  constructor(options: { maxScanBytes?: number; maxHoldMs?: number; lingerMs?: number } = {}) {
    this.discovery = new SharedDiscovery(options.maxScanBytes);
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
  }

  /**
   * One cluster of `session` on its way to its writes in `regions`: until the function returned is
   * called (right before it submits them, or when it ends without), writes of its scopes wait for it.
   */
  coming(session: TaggingSession, regions: readonly string[]): () => void {
    return this.#arrivals.coming(regions.map((region) => this.scope(session, region)));
  }

  /**
   * How long a write of `scope` waits to be joined (a `Coalescer` hold): until no cluster has been on
   * its way there for `lingerMs` (an edit's clusters start one reconcile after the other, the next
   * may be about to), `maxHoldMs` at most.
   */
  async joined(scope: string, clock: TaggingClock): Promise<void> {
    const deadline = clock.now() + this.#maxHoldMs;
    for (let left = this.#maxHoldMs; left > 0; left = deadline - clock.now()) {
      if (this.#arrivals.pending(scope)) {
        await Promise.race([this.#arrivals.none(scope), clock.sleep(left)]);
      } else {
        await clock.sleep(Math.min(this.#lingerMs, left));
        if (!this.#arrivals.pending(scope)) return;
      }
    }
  }

  /**
   * One write submitted in `scope`: until the function returned is called (once it is answered), its
   * scope's read-backs wait for it (`answered`).
   */
  writing(scope: string): () => void {
    return this.#unanswered.coming([scope]);
  }

  /**
   * How long a read-back of `scope` waits to be joined (a `Coalescer` hold): until every write of the
   * scope submitted meanwhile is answered, since their clusters read back next, `maxHoldMs` at most.
   * A cluster whose scope has no other write on its way reads back at once.
   */
  async answered(scope: string, clock: TaggingClock): Promise<void> {
    if (!this.#unanswered.pending(scope)) return;
    await Promise.race([this.#unanswered.none(scope), clock.sleep(this.#maxHoldMs)]);
  }

  /** Write calls of up to `capacity` resources (a tagger's; the action is in each call's content). */
  writes(capacity: number): Coalescer<WriteOutcome> {
    return coalescerOf(this.#writes, capacity);
  }

  /** Reads of the tags of up to `capacity` resources a call. */
  reads(capacity: number): Coalescer<ReadOutcome> {
    return coalescerOf(this.#reads, capacity);
  }

  /** The scope of calls that may share: one credential set in one region. */
  scope(session: TaggingSession, region: string): string {
    let key = session.key;
    if (key === undefined) {
      const id = this.#keyless.get(session) ?? this.#nextKeyless++;
      this.#keyless.set(session, id);
      key = `#${id}`;
    }
    return JSON.stringify([session.accountId, key, region]);
  }
}

function coalescerOf<Outcome>(coalescers: Map<number, Coalescer<Outcome>>, capacity: number): Coalescer<Outcome> {
  let coalescer = coalescers.get(capacity);
  if (coalescer === undefined) {
    coalescer = new Coalescer<Outcome>(capacity);
    coalescers.set(capacity, coalescer);
  }
  return coalescer;
}
