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
  const resources: Record<string, Record<string, string>> = { ...planned.resources };
  const regions: Record<string, string> = { ...planned.regions };
  for (const { arn } of gone) {
    delete resources[arn];
    delete regions[arn];
  }
  for (const { arn, set, removed } of applied) {
    const tags = { ...resources[arn], ...set };
    for (const key of removed) delete tags[key];
    resources[arn] = tags;
  }
  return { resources, regions };
}
