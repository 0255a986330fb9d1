import type { ResourceOutcome, TagPlan } from './types.js';

/** The counts of a plan, named like status.tagging where they mean the same. */
export interface PlanSummary {
  resourcesDiscovered: number;
  resourcesInSync: number;
  /** Resources whose tags differ from the effective ones (outcome Change or OverLimit). */
  resourcesDrifted: number;
  resourcesOverLimit: number;
  resourcesSkipped: number;
  tagsToAdd: number;
  tagsToUpdate: number;
  tagsToRemove: number;
  /** Adds held back because they would break AWS's tag limit. */
  tagsWithheld: number;
  /** Keys that layers disagree on. */
  conflicts: number;
  /** The status.tagging.managedTags to record once the plan is applied in full. */
  managedTags: Record<string, string>;
}

export function summarizePlan(plan: TagPlan): PlanSummary {
  const outcomes = (outcome: ResourceOutcome) =>
    plan.resources.filter((resource) => resource.outcome === outcome).length;
  const total = (count: (resource: TagPlan['resources'][number]) => number) =>
    plan.resources.reduce((sum, resource) => sum + count(resource), 0);
  return {
    resourcesDiscovered: plan.resources.length,
    resourcesInSync: outcomes('InSync'),
    resourcesDrifted: outcomes('Change') + outcomes('OverLimit'),
    resourcesOverLimit: outcomes('OverLimit'),
    resourcesSkipped: outcomes('Skip'),
    tagsToAdd: total((resource) => resource.add.length),
    tagsToUpdate: total((resource) => resource.update.length),
    tagsToRemove: total((resource) => resource.remove.length),
    tagsWithheld: total((resource) => resource.overLimit?.withheld.length ?? 0),
    conflicts: plan.conflicts.length,
    managedTags: Object.fromEntries(Object.entries(plan.tags).map(([key, source]) => [key, source.value])),
  };
}
