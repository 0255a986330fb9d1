import { getAllResources, resourcePages, type ResourceTags } from '../aws/get-resources.js';
import type { ApiContext } from '../aws/region-api.js';
import type { TaggingApi } from '../aws/tagging-api.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { matchesAny, ownershipFilters } from '../ownership.js';
import { ScanIndex } from './scan-index.js';

/** One cluster's discovery in one region: its ownership tags with one of `values` (`ownershipFilters`). */
export interface OwnershipQuery {
  clusterName: string;
  values: readonly string[];
  /**
   * When the cluster's work was asked for (the clock's ms): a scan begun then or later sees every
   * resource that existed when it was asked, so it may answer. Default: now.
   */
  askedAt?: number;
  /** Clusters of the same credentials and region whose work has yet to reach its writes, this one included, when asked: a scan serves them all. Default: this one. */
  expected?: () => number;
}

interface Waiting {
  query: OwnershipQuery;
  api: TaggingApi;
  context: ApiContext;
  resolve: (found: ResourceTags[]) => void;
  reject: (error: unknown) => void;
}

/** A scan of one scope: when it began, and the clusters' resources it found (undefined: stopped or failed). */
interface Scan {
  startedAt: number;
  index: Promise<ScanIndex | undefined>;
}

/** The queries a cluster makes alone: one per filter of `ownershipFilters`. */
const QUERIES_ALONE = ownershipFilters('', []).length;

/** How long a finished scan answers clusters asked for before it began: long enough for a fleet's queue to drain. */
export const SCAN_KEPT_MS = 10 * 60_000;
/**
 * What the scans being read and kept may take in all (`ScanIndex.bytes`): at 10,000 clusters of 20
 * resources with 6 tags, every account and region scans at once after a restart or a fleet-wide edit,
 * about 60 MiB packed (130 MiB as read). A scan that would go past it stops, and its clusters query alone.
 */
export const DEFAULT_SCAN_BYTES = 64 * 1024 * 1024;

/**
 * Discovery shared by the clusters of one credential set and region. Alone, a cluster costs three
 * GetResources (one per filter of `ownershipFilters`) and a page more per 100 resources. A scan of
 * every tagged resource of the credentials in the region costs a page per 100 resources, and answers
 * every cluster whose work was asked for before it began (`askedAt`): each cluster's resources picked
 * out as its own queries would have found them, and handed out once (a second ask queries again). So
 * it is made when more clusters want it, waiting for the token together or on their way beside them
 * (`expected`), than a third of its pages. A scan that reaches as many pages as those clusters' own
 * queries stops (each cluster then queries alone, as it would have) and the region is taken to hold
 * twice as many pages as were read; the pages a finished scan took are remembered. When a token is
 * free at once, no cluster waits to be joined. A scan sees what the clusters' own queries see: same
 * credentials, same region.
 */
export class SharedDiscovery {
  readonly #open = new Map<string, Waiting[]>();
  /** Scope -> the pages the last scan took, or had taken when it stopped (at least that many). */
  readonly #pages = new Map<string, number>();
  /** Scope -> its latest scan, kept `SCAN_KEPT_MS` after it began. */
  readonly #scans = new Map<string, Scan>();
  /** What scans being read and kept take now (`ScanIndex.bytes`). */
  #held = 0;

  /** `maxBytes`: what scans being read and kept may take in all. */
  constructor(private readonly maxBytes = DEFAULT_SCAN_BYTES) {}

  /** What scans being read and kept take now (`ScanIndex.bytes`): for tests and metrics. */
  get heldBytes(): number {
    return this.#held;
  }

  async find(scope: string, api: TaggingApi, context: ApiContext, query: OwnershipQuery): Promise<ResourceTags[]> {
    const now = context.clock.now();
    this.#forgetOld(now);
    const scan = this.#scans.get(scope);
    if (scan !== undefined && scan.startedAt >= (query.askedAt ?? now)) {
      const found = (await scan.index)?.take(query.clusterName);
      if (found !== undefined) return found.filter(ownedBy(query));
    }
    return this.#gather(scope, api, context, query);
  }

  #gather(scope: string, api: TaggingApi, context: ApiContext, query: OwnershipQuery): Promise<ResourceTags[]> {
    return new Promise((resolve, reject) => {
      const waiting = this.#open.get(scope);
      const request = { query, api, context, resolve, reject };
      if (waiting !== undefined) {
        waiting.push(request);
        return;
      }
      const gathered = [request];
      this.#open.set(scope, gathered);
      void api.reads.acquire().then((grant) => {
        this.#open.delete(scope);
        return this.#serve(scope, gathered, grant);
      });
    });
  }

  async #serve(scope: string, gathered: Waiting[], grant: Grant): Promise<void> {
    const wanting = Math.max(gathered.length, ...gathered.map(({ query }) => query.expected?.() ?? 1));
    const alone = QUERIES_ALONE * wanting;
    const known = this.#pages.get(scope);
    const scan = wanting > 1 && (known === undefined || known < alone);
    const index = scan ? await this.#scan(scope, gathered[0]!, grant, alone - 1) : undefined;
    gathered.forEach((request, index_) => {
      const found = index?.take(request.query.clusterName);
      if (found !== undefined) request.resolve(found.filter(ownedBy(request.query)));
      else answer(request, queryAlone(request, !scan && index_ === 0 ? grant : undefined));
    });
  }

  /**
   * Every owned resource of the scope, by cluster name; undefined when that takes more than
   * `maxPages` or more memory than is left, or fails.
   */
  #scan(scope: string, opener: Waiting, grant: Grant, maxPages: number): Promise<ScanIndex | undefined> {
    const index = this.#read(scope, opener, grant, maxPages);
    this.#forget(scope);
    this.#scans.set(scope, { startedAt: opener.context.clock.now(), index });
    return index;
  }

  async #read(scope: string, opener: Waiting, grant: Grant, maxPages: number): Promise<ScanIndex | undefined> {
    const index = new ScanIndex((bytes) => (this.#held -= bytes));
    let pages = 0;
    try {
      for await (const page of resourcePages(opener.api, opener.context, {}, grant)) {
        pages++;
        this.#held += index.add(page.resources);
        if (page.last) {
          this.#pages.set(scope, pages);
          return index;
        }
        // Stopped for memory, the scan says nothing of the region's size.
        if (this.#held > this.maxBytes) break;
        if (pages === maxPages) {
          this.#pages.set(scope, 2 * pages);
          break;
        }
      }
    } catch {
      // Each cluster asks again alone, and sees for itself whatever failed.
    }
    index.clear();
    return undefined;
  }

  #forgetOld(now: number): void {
    for (const [scope, { startedAt }] of this.#scans) if (now - startedAt > SCAN_KEPT_MS) this.#forget(scope);
  }

  /** Forgets the scope's scan, letting go of what it kept once it is read. */
  #forget(scope: string): void {
    const scan = this.#scans.get(scope);
    if (scan === undefined) return;
    this.#scans.delete(scope);
    void scan.index.then((index) => index?.clear());
  }
}

const answer = ({ resolve, reject }: Waiting, found: Promise<ResourceTags[]>) => void found.then(resolve, reject);

/** The cluster's own queries, one per filter of `ownershipFilters`, merged by ARN. */
async function queryAlone({ query, api, context }: Waiting, grant?: Grant): Promise<ResourceTags[]> {
  const found = await Promise.all(
    ownershipFilters(query.clusterName, query.values).map(({ key, values }, index) =>
      getAllResources(
        api,
        context,
        { TagFilters: [{ Key: key, Values: [...values] }] },
        index === 0 ? grant : undefined,
      ),
    ),
  );
  return found.flat();
}

/** Whether a resource matches one of the cluster's filters: what its queries find. */
function ownedBy({ clusterName, values }: OwnershipQuery): (resource: ResourceTags) => boolean {
  const filters = ownershipFilters(clusterName, values);
  return ({ tags }) => matchesAny(tags, filters);
}
