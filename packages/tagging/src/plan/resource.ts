import { LIMITS } from '@keymaster/api';
import { arnRegion } from '../arn.js';
import { isOwnershipKey, ownershipOf } from '../ownership.js';
import { entry } from '../records.js';
import { countUserTags, isAwsKey } from '../validate.js';
import type { RemovalPolicy, ResourcePlan, SkipReason, TagUpdate, TagWrite } from './types.js';

type Tags = Readonly<Record<string, string>>;

/** What every resource of one plan is compared with. */
export interface PlanContext {
  clusterName: string;
  /** The effective tags Keymaster writes (ownership keys already left out). */
  desired: Tags;
  /** The keys applied before, with the values applied (status.tagging.managedTags). */
  managedTags: Tags;
  removalPolicy: RemovalPolicy;
  includeShared: boolean;
  regions: Tags;
}

function skipped(arn: string, reason: SkipReason, message: string): ResourcePlan {
  return { arn, outcome: 'Skip', add: [], update: [], remove: [], conflicts: [], skip: { reason, message } };
}

/** The changes one resource needs; never touches a key Keymaster does not manage. */
export function planResource(arn: string, live: Tags, context: PlanContext): ResourcePlan {
  const ownership = ownershipOf(live, context.clusterName);
  if (ownership === 'None') {
    return skipped(arn, 'NotOwned', `no ownership tag of cluster ${context.clusterName} on the resource any more`);
  }
  if (ownership === 'Shared' && !context.includeShared) {
    return skipped(arn, 'Shared', 'the resource is shared with other clusters; includeShared would tag it');
  }
  const arnField = arnRegion(arn);
  if (arnField === undefined) return skipped(arn, 'InvalidArn', 'not an ARN (arn:partition:service:region:...)');
  const region = arnField || entry(context.regions, arn);
  if (!region) return skipped(arn, 'UnknownRegion', 'the ARN carries no region and discovery gave none');

  const add: TagWrite[] = [];
  const update: TagUpdate[] = [];
  for (const [key, value] of Object.entries(context.desired)) {
    const current = entry(live, key);
    if (current === undefined) {
      add.push({ key, value });
    } else if (current !== value) {
      update.push({ key, from: current, to: value, reason: updateReason(key, current, context) });
    }
  }

  const remove: TagWrite[] = [];
  const conflicts: ResourcePlan['conflicts'] = [];
  if (context.removalPolicy === 'Delete') {
    for (const [key, applied] of Object.entries(context.managedTags)) {
      const current = entry(live, key);
      const stillManaged = Object.hasOwn(context.desired, key);
      if (current === undefined || stillManaged || isOwnershipKey(key) || isAwsKey(key)) continue;
      if (current === applied) remove.push({ key, value: current });
      else conflicts.push({ key, live: current, applied });
    }
  }

  const userTags = countUserTags(live) + add.length - remove.length;
  if (add.length > 0 && userTags > LIMITS.tagsPerResource) {
    const overLimit = { limit: LIMITS.tagsPerResource, userTags, withheld: add };
    return { arn, region, outcome: 'OverLimit', add: [], update, remove, conflicts, overLimit };
  }
  const changes = add.length + update.length + remove.length;
  return { arn, region, outcome: changes > 0 ? 'Change' : 'InSync', add, update, remove, conflicts };
}

function updateReason(key: string, current: string, context: PlanContext): TagUpdate['reason'] {
  const applied = entry(context.managedTags, key);
  if (applied === undefined) return 'Adopted';
  return applied === current ? 'PolicyChanged' : 'Drift';
}
