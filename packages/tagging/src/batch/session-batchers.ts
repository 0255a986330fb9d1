import type { AwsFailure } from '../aws/codes.js';
import { MAX_RESOURCES_PER_PAGE } from '../aws/get-resources.js';
import type { TaggingSession } from '../aws/tagging-api.js';
import { MAX_ARNS_PER_CALL } from '../plan/batches.js';
import { Coalescer } from './coalescer.js';
import { SharedDiscovery } from './shared-discovery.js';

/** A write's answer for one ARN: accepted (`undefined`), or AWS's failure. */
export type WriteOutcome = AwsFailure | undefined;

/** What reading one resource back gave: its tags, or why they could not be read. */
export type ReadOutcome = { tags: Record<string, string> } | { failure: AwsFailure };

/**
 * The calls that clusters may share, for the whole controller: create one beside its `RateLimiters`
 * and pass it to every `reconcileTags`. Clusters that use the same credentials (an `IdentitySession`'s
 * `key`: the same identity chain) in one region then share TagResources, UntagResources and read-back
 * calls of the same content, up to AWS's limits per call, and discovery when a scan is cheaper. Clusters of other credentials never share a
 * call, even in the same account: a cluster's tags are only ever written with its own credentials. A
 * session without a `key` shares with itself only. Only batches waiting for a token are held: the
 * memory follows the calls in flight, not the fleet.
 */
export class SessionBatchers {
  /** TagResources / UntagResources: up to 20 ARNs a call. */
  readonly writes = new Coalescer<WriteOutcome>(MAX_ARNS_PER_CALL);
  /** GetResources by ARN (reading tags back): up to 100 ARNs a call. */
  readonly reads = new Coalescer<ReadOutcome>(MAX_RESOURCES_PER_PAGE);
  /** Discovery: one scan for the clusters that want it, where it costs fewer calls than their queries. */
  readonly discovery: SharedDiscovery;
  readonly #keyless = new WeakMap<TaggingSession, number>();
  #nextKeyless = 0;

  /** `maxScanBytes`: what discovery's scans may keep in all (default `DEFAULT_SCAN_BYTES`, 64 MiB). */
  constructor(options: { maxScanBytes?: number } = {}) {
    this.discovery = new SharedDiscovery(options.maxScanBytes);
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
