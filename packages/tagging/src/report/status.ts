import type { ClusterTaggingStatus } from '@keymaster/api';
import { isRemoval, type GoneResource, type TagFailure } from '../apply/types.js';
import { summarizePlan } from '../plan/summary.js';
import type { TagPlan } from '../plan/types.js';
import { entry } from '../records.js';
import { planStatus } from './plan-status.js';

/** The figures of one reconcile for `status.tagging` (the controller adds `lastSyncTime` and `summary`); `plan` after a dry run. */
export type TaggingStatus = Required<Omit<ClusterTaggingStatus, 'lastSyncTime' | 'summary' | 'plan'>> &
  Pick<ClusterTaggingStatus, 'plan'>;

/** The ARNs of the plan's resources that cannot carry every effective tag: failed, or over the limit. */
export function failedArns(plan: TagPlan, failed: readonly TagFailure[], gone: readonly GoneResource[]): Set<string> {
  const goneArns = new Set(gone.map(({ arn }) => arn));
  const arns = [
    ...failed.map(({ arn }) => arn),
    ...plan.resources.filter(({ outcome }) => outcome === 'OverLimit').map(({ arn }) => arn),
  ];
  return new Set(arns.filter((arn) => !goneArns.has(arn)));
}

/**
 * What status.tagging says after a reconcile. Resources that turned out to be gone are not counted.
 * A resource is in sync when it was, or when every write it needed was verified; failed when a write
 * failed or could not be verified, or when adds were withheld for the tag limit. `managedTags` are the
 * effective tags, plus the keys whose removal failed somewhere (with the value applied before), so
 * that the Delete policy tries again; after a dry run they are the ones given, as nothing was written,
 * and `plan` sums up what a reconcile would change.
 */
export function taggingStatus(
  plan: TagPlan,
  outcome: { failed: readonly TagFailure[]; gone: readonly GoneResource[]; dryRun: boolean },
  managedTags: Readonly<Record<string, string>> = {},
): TaggingStatus {
  const goneArns = new Set(outcome.gone.map(({ arn }) => arn));
  const resources = plan.resources.filter(({ arn }) => !goneArns.has(arn));
  const failed = failedArns(plan, outcome.failed, outcome.gone);
  const count = (test: (resource: TagPlan['resources'][number]) => boolean) => resources.filter(test).length;
  const inSync = count(
    ({ arn, outcome: planned }) =>
      planned === 'InSync' || (!outcome.dryRun && planned === 'Change' && !failed.has(arn)),
  );
  return {
    resourcesDiscovered: resources.length,
    resourcesInSync: inSync,
    // The state after the reconcile, as Kubernetes status should tell: drift that was corrected is gone.
    resourcesDrifted: resources.length - inSync,
    resourcesFailed: failed.size,
    conflicts: plan.conflicts,
    managedTags: outcome.dryRun ? { ...managedTags } : nextManagedTags(plan, outcome.failed, managedTags),
    ...(outcome.dryRun ? { plan: planStatus(plan) } : {}),
  };
}

function nextManagedTags(
  plan: TagPlan,
  failed: readonly TagFailure[],
  managedTags: Readonly<Record<string, string>>,
): Record<string, string> {
  const next = summarizePlan(plan).managedTags;
  for (const failure of failed) {
    if (!isRemoval(failure.action)) continue;
    for (const key of failure.keys) {
      const applied = entry(managedTags, key);
      if (applied !== undefined && !Object.hasOwn(next, key)) next[key] = applied;
    }
  }
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
