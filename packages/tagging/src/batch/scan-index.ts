import { ownershipTagKeys } from '@keymaster/api';
import type { ResourceTags } from '../aws/get-resources.js';

// The ownership keys without a cluster name, as GetResources' TagFilters match them: exactly.
const PREFIXES = ownershipTagKeys('');

/** About what a resource found by a scan takes in memory: its strings and the objects around them. */
export function resourceBytes({ arn, tags }: ResourceTags): number {
  let bytes = 100 + arn.length;
  for (const key in tags) bytes += 40 + key.length + tags[key]!.length;
  return bytes;
}

/**
 * What one scan found, by the cluster names in the resources' ownership keys (resources of no cluster
 * are dropped), each name's resources handed out once: memory goes down as clusters take theirs.
 * `freed` is told the bytes (`resourceBytes`) each take and `clear` let go.
 */
export class ScanIndex {
  readonly #byCluster = new Map<string, { resources: ResourceTags[]; bytes: number }>();
  readonly #taken = new Set<string>();
  #cleared = false;
  #bytes = 0;

  constructor(
    resources: readonly ResourceTags[],
    private readonly freed: (bytes: number) => void,
  ) {
    for (const resource of resources) {
      const names = new Set<string>();
      for (const key of Object.keys(resource.tags)) {
        const prefix = PREFIXES.find((start) => key.startsWith(start));
        if (prefix !== undefined) names.add(key.slice(prefix.length));
      }
      const bytes = names.size > 0 ? resourceBytes(resource) : 0;
      for (const name of names) {
        const found = this.#byCluster.get(name) ?? { resources: [], bytes: 0 };
        found.resources.push(resource);
        found.bytes += bytes;
        this.#byCluster.set(name, found);
        this.#bytes += bytes;
      }
    }
  }

  /** What the resources kept take (`resourceBytes`; a resource of two cluster names counts twice). */
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
    return found.resources;
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
