import { resourceBytes } from './batch/scan-index.js';
import type { DiscoveredResources } from './discovery.js';
import { packedBytes, packTags, unpackTags } from './packed.js';
import type { AppliedChange } from './report/events.js';

/**
 * A cluster's resources as a reconcile left them: what discovery found (or the known set it planned
 * from), less the resources AWS says are gone, with the writes AWS accepted and read back. The next
 * reconcile may plan its writes from it instead of discovering (`ReconcileTagsInput.known`).
 */
export function knownAfter(
  planned: DiscoveredResources,
  applied: readonly AppliedChange[],
  gone: readonly { arn: string }[],
): DiscoveredResources {
  const left = new Set(gone.map(({ arn }) => arn));
  const changes = new Map(applied.map((change) => [change.arn, change]));
  const resources = Object.entries(planned.resources)
    .filter(([arn]) => !left.has(arn))
    .map(([arn, tags]): [string, Record<string, string>] => {
      const change = changes.get(arn);
      if (change === undefined) return [arn, tags];
      const written = { ...tags, ...change.set };
      // Most changes remove nothing: then the spread is the answer, without a round of entries.
      if (change.removed.length === 0) return [arn, written];
      const removed = new Set(change.removed);
      return [arn, Object.fromEntries(Object.entries(written).filter(([key]) => !removed.has(key)))];
    });
  const regions = Object.entries(planned.regions).filter(([arn]) => !left.has(arn));
  return { resources: Object.fromEntries(resources), regions: Object.fromEntries(regions) };
}

/**
 * A known set as kept between reconciles: a string per resource (its region, ARN, keys and values),
 * about 60 % of the heap of the objects it came as; a resource that cannot be packed (a separator in
 * a part, or no region) stays an object.
 */
export type PackedKnown = readonly (
  string | { arn: string; region: string | undefined; tags: Record<string, string> }
)[];

export function packKnown({ resources, regions }: DiscoveredResources): PackedKnown {
  return Object.keys(resources).map((arn) => {
    const region = regions[arn];
    const tags = resources[arn]!;
    const packed = region === undefined ? undefined : packTags([region, arn], tags);
    return packed ?? { arn, region, tags };
  });
}

export function unpackKnown(packed: PackedKnown): DiscoveredResources {
  const resources: [string, Record<string, string>][] = [];
  const regions: [string, string][] = [];
  for (const entry of packed) {
    if (typeof entry === 'string') {
      const { head, tags } = unpackTags(entry, 2);
      resources.push([head[1]!, tags]);
      regions.push([head[1]!, head[0]!]);
    } else {
      resources.push([entry.arn, entry.tags]);
      if (entry.region !== undefined) regions.push([entry.arn, entry.region]);
    }
  }
  return { resources: Object.fromEntries(resources), regions: Object.fromEntries(regions) };
}

/** About what a packed known set takes in memory. */
export function packedKnownBytes(packed: PackedKnown): number {
  let bytes = 0;
  for (const entry of packed)
    bytes += typeof entry === 'string' ? packedBytes(entry) : resourceBytes(entry) + (entry.region?.length ?? 0);
  return bytes;
}
