import type { ClusterMemory } from './cluster-memory.js';
import { memoryBefore } from './plan/resource.js';
import type { TagPlan } from './plan/types.js';
import type { AppliedChange } from './report/events.js';

export interface MemoryAfterInput {
  /** The memory the plan read. */
  memory: ClusterMemory;
  plan: TagPlan;
  /** ARN -> the live tags the plan was made from. */
  resources: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The writes AWS accepted and reading back showed, per resource. */
  applied: readonly AppliedChange[];
  /** Discovered resources AWS says no longer exist. */
  gone: readonly { arn: string }[];
  convertLegacy: boolean;
  dryRun: boolean;
}

/**
 * What the cluster's ledger remembers after a reconcile: each resource's memory before the plan (the
 * ledger's, and legacy memory being converted), with what the writes AWS accepted and read back
 * record. A write that failed, or was not seen, records nothing: Delete then removes less, never
 * more. Resources no longer discovered, or gone, are forgotten; a dry run writes nothing, so it keeps
 * every entry and records only the legacy memory it read.
 */
export function memoryAfter(input: MemoryAfterInput): ClusterMemory {
  const { memory, plan, resources, convertLegacy, dryRun } = input;
  const next = memory.copy();
  const applied = new Map(dryRun ? [] : input.applied.map((change) => [change.arn, change]));
  for (const resource of plan.resources) {
    // Left alone: what was remembered stays as it was.
    if (resource.outcome === 'Skip') continue;
    const remembered = memoryBefore(resource.arn, resources[resource.arn]!, { memory, convertLegacy, held: plan.held });
    const change = applied.get(resource.arn);
    if (change !== undefined) {
      const from = new Map(resource.update.map(({ key, from: value }) => [key, value]));
      for (const [key, value] of Object.entries(change.set))
        remembered.write(plan.tags[key]!.layer, key, value, from.get(key));
      const values = new Map(resource.remove.map(({ key, value }) => [key, value]));
      for (const key of change.removed) remembered.forget(key, values.get(key)!);
    }
    next.set(resource.arn, remembered);
  }
  if (!dryRun) {
    const gone = new Set(input.gone.map(({ arn }) => arn));
    next.keepOnly(plan.resources.map(({ arn }) => arn).filter((arn) => !gone.has(arn)));
  }
  return next;
}
