import { LIMITS, type TagPlanStatus } from '@keymaster/api';
import { planChanges } from '../plan/changes.js';
import { summarizePlan } from '../plan/summary.js';
import type { TagPlan } from '../plan/types.js';

/**
 * status.tagging.plan after a dry run: the counts of each kind of change, and the first changes
 * (`LIMITS.planChangesInStatus`) so that status stays small whatever the plan; `keymaster plan`
 * shows them all.
 */
export function planStatus(plan: TagPlan): TagPlanStatus {
  const summary = summarizePlan(plan);
  const changes = planChanges(plan);
  return {
    resourcesToChange: summary.resourcesDrifted,
    resourcesOverLimit: summary.resourcesOverLimit,
    resourcesSkipped: summary.resourcesSkipped,
    tagsToAdd: summary.tagsToAdd,
    tagsToUpdate: summary.tagsToUpdate,
    tagsToRemove: summary.tagsToRemove,
    tagsWithheld: summary.tagsWithheld,
    changes: changes.slice(0, LIMITS.planChangesInStatus),
    changesNotShown: Math.max(0, changes.length - LIMITS.planChangesInStatus),
  };
}
