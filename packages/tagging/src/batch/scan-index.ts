import type { ResourceTags } from '../aws/get-resources.js';
import { clusterNamesIn } from '../ownership.js';
import { packedBytes, packTags, unpackTags } from '../packed.js';

/** About what a resource found by a scan takes in memory as read: its strings and the objects around them. */
export function resourceBytes({ arn, tags }: ResourceTags): number {
  let bytes = 100 + arn.length;
  for (const key in tags) bytes += 40 + key.length + tags[key]!.length;
  return bytes;
}

/**
 * A resource as one string (ARN, then keys and values, separated): about 40 % of the objects it
 * came as, for the heap holds every cluster's resources of a region until the clusters take them. A
 * resource with a separator in it (AWS allows none) is kept as it is.
 */
type Packed = string | ResourceTags;

function pack(resource: ResourceTags): Packed {
  return packTags([resource.arn], resource.tags) ?? resource;
}

function unpack(packed: Packed): ResourceTags {
  if (typeof packed !== 'string') return packed;
  const { head, tags } = unpackTags(packed, 1);
  return { arn: head[0]!, tags };
}

const bytesOf = (packed: Packed): number => (typeof packed === 'string' ? packedBytes(packed) : resourceBytes(packed));

/**
 * What one scan found, page by page, by the cluster names the resources' tags speak of, exactly as
 * GetResources' TagFilters match them (resources of no cluster are dropped), packed, each name's
 * resources handed out once: memory goes down as clusters take theirs. `freed` is told the bytes each
 * take and `clear` let go.
 */
export class ScanIndex {
  readonly #byCluster = new Map<string, { resources: Packed[]; bytes: number }>();
  readonly #taken = new Set<string>();
  #cleared = false;
  #bytes = 0;

  constructor(private readonly freed: (bytes: number) => void) {}

  /** Keeps the page's resources of clusters; returns what they take. */
  add(page: readonly ResourceTags[]): number {
    let added = 0;
    for (const resource of page) {
      const names = clusterNamesIn(resource.tags);
      if (names.size === 0) continue;
      const packed = pack(resource);
      const bytes = bytesOf(packed);
      for (const name of names) {
        const found = this.#byCluster.get(name) ?? { resources: [], bytes: 0 };
        found.resources.push(packed);
        found.bytes += bytes;
        this.#byCluster.set(name, found);
        added += bytes;
      }
    }
    this.#bytes += added;
    return added;
  }

  /** What the resources kept take (a resource of two cluster names counts twice). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The resources with an ownership key of `clusterName`, or undefined when that name's were taken already. */
  take(clusterName: string): ResourceTags[] | undefined {
    if (this.#cleared || this.#taken.has(clusterName)) return undefined;
    this.#taken.add(clusterName);
    const found = this.#byCluster.get(clusterName);
    if (found === undefined) return [];
    this.#byCluster.delete(clusterName);
    this.#free(found.bytes);
    return found.resources.map(unpack);
  }

  /** Lets go of every resource (the scan is forgotten): a later take finds nothing, as if taken. */
  clear(): void {
    this.#cleared = true;
    this.#byCluster.clear();
    this.#taken.clear();
    this.#free(this.#bytes);
  }

  #free(bytes: number): void {
    this.#bytes -= bytes;
    this.freed(bytes);
  }
}
