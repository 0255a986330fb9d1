import { ownershipTagKeys } from '@keymaster/api';
import { getAllResources, getResourcePages, type ResourceTags } from '../aws/get-resources.js';
import type { CallContext, TaggingApi } from '../aws/tagging-api.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { entry } from '../records.js';

/** One cluster's discovery in one region: its ownership tags with one of `values`. */
export interface OwnershipQuery {
  clusterName: string;
  values: readonly string[];
}

interface Waiting {
  query: OwnershipQuery;
  api: TaggingApi;
  context: CallContext;
  resolve: (found: ResourceTags[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Discovery shared by the clusters of one credential set and region that wait for the rate limiter
 * at the same time. Alone, a cluster costs two GetResources (one per ownership key: AWS ANDs the keys
 * of `TagFilters`, so one query cannot ask for either) and a page more per 100 resources. When k
 * clusters wait together, one scan of every tagged resource of the credentials in the region, each
 * cluster's resources picked out as the two queries would have found them, is cheaper while it takes
 * fewer than 2k pages. A scan that reaches 2k - 1 pages stops (each cluster then queries alone, as it
 * would have) and the region is taken to hold twice as many pages as were read; the pages a finished
 * scan took are remembered. So a large account is only scanned again for at least twice as many
 * clusters, and the pages of stopped scans add up to at most about twice one whole scan, once. When a
 * token is free at once, no cluster waits to be joined. A scan sees what the clusters' own queries
 * see: same credentials, same region.
 */
export class SharedDiscovery {
  readonly #open = new Map<string, Waiting[]>();
  /** Scope -> the pages the last scan took, or had taken when it stopped (at least that many). */
  readonly #pages = new Map<string, number>();

  find(scope: string, api: TaggingApi, context: CallContext, query: OwnershipQuery): Promise<ResourceTags[]> {
    return new Promise((resolve, reject) => {
      const waiting = this.#open.get(scope);
      const request = { query, api, context, resolve, reject };
      if (waiting !== undefined) {
        waiting.push(request);
        return;
      }
      const gathered = [request];
      this.#open.set(scope, gathered);
      void api.limiter.acquire().then((grant) => {
        this.#open.delete(scope);
        return this.#serve(scope, gathered, grant);
      });
    });
  }

  async #serve(scope: string, gathered: Waiting[], grant: Grant): Promise<void> {
    const alone = 2 * gathered.length;
    const known = this.#pages.get(scope);
    const scan = gathered.length > 1 && (known === undefined || known < alone);
    const scanned = scan ? await this.#scan(scope, gathered[0]!, grant, alone - 1) : undefined;
    gathered.forEach((request, index) => {
      if (scanned !== undefined) request.resolve(scanned.filter(ownedBy(request.query)));
      else answer(request, queryAlone(request, !scan && index === 0 ? grant : undefined));
    });
  }

  /** Every tagged resource of the scope, or undefined when that takes more than `maxPages` or fails. */
  async #scan(scope: string, opener: Waiting, grant: Grant, maxPages: number): Promise<ResourceTags[] | undefined> {
    try {
      const scan = await getResourcePages(opener.api, opener.context, {}, { grant, maxPages });
      this.#pages.set(scope, scan.complete ? scan.pages : 2 * scan.pages);
      return scan.complete ? scan.resources : undefined;
    } catch {
      return undefined; // Each cluster asks again alone, and sees for itself whatever failed.
    }
  }
}

const answer = ({ resolve, reject }: Waiting, found: Promise<ResourceTags[]>) => void found.then(resolve, reject);

/** The cluster's own queries, one per ownership key, merged by ARN. */
async function queryAlone({ query, api, context }: Waiting, grant?: Grant): Promise<ResourceTags[]> {
  const [first, second] = ownershipTagKeys(query.clusterName).map((Key) => ({
    TagFilters: [{ Key, Values: [...query.values] }],
  }));
  const found = await Promise.all([
    getAllResources(api, context, first!, grant),
    getAllResources(api, context, second!),
  ]);
  return found.flat();
}

/** Whether a resource carries one of the cluster's ownership keys with one of the values: what its queries match. */
function ownedBy({ clusterName, values }: OwnershipQuery): (resource: ResourceTags) => boolean {
  const keys = ownershipTagKeys(clusterName);
  return ({ tags }) =>
    keys.some((key) => {
      const value = entry(tags, key);
      return value !== undefined && values.includes(value);
    });
}
