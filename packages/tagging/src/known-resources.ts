import { resourceBytes } from './batch/scan-index.js';
import type { DiscoveredResources } from './discovery.js';
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

/** About what a known set takes in memory: its resources as read, and their regions. */
export function knownBytes({ resources, regions }: DiscoveredResources): number {
  let bytes = 0;
  for (const arn in resources) bytes += resourceBytes({ arn, tags: resources[arn]! }) + (regions[arn]?.length ?? 0);
  return bytes;
}
