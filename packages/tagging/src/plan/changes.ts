import type { TagPlanChange } from '@keymaster/api';
import type { TagPlan } from './types.js';

/**
 * What a plan does, one key of one resource at a time, in ARN then key order: each change with the
 * value found, the value set, why, and the layer whose claim wins the key. The rows of
 * `keymaster plan` and of status.tagging.plan. Resources in sync or skipped have none.
 */
export function planChanges(plan: TagPlan): TagPlanChange[] {
  const winner = (key: string) => {
    const source = plan.tags[key];
    return source ? { layer: source.layer, object: source.object } : {};
  };
  return plan.resources.flatMap(({ arn: resource, add, update, remove, conflicts, overLimit }) =>
    [
      ...add.map(({ key, value }): TagPlanChange => ({ resource, key, action: 'Add', to: value, ...winner(key) })),
      ...update.map(({ key, from, to, reason }): TagPlanChange => ({
        resource,
        key,
        action: 'Update',
        from,
        to,
        reason,
        ...winner(key),
      })),
      ...remove.map(({ key, value }): TagPlanChange => ({
        resource,
        key,
        action: 'Remove',
        from: value,
        reason: 'Dropped',
      })),
      ...conflicts.map(({ key, live }): TagPlanChange => ({
        resource,
        key,
        action: 'Keep',
        from: live,
        reason: 'ChangedSince',
      })),
      ...(overLimit?.withheld ?? []).map(({ key, value }): TagPlanChange => ({
        resource,
        key,
        action: 'Withhold',
        to: value,
        reason: 'TagLimit',
        ...winner(key),
      })),
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  );
}
