import { LIMITS } from '@keymaster/api';
import { arnRegion } from '../arn.js';
import { CLAIM_KEY } from '../claim.js';
import { ResourceMemory } from '../memory.js';
import { isOwnershipKey, ownershipOf } from '../ownership.js';
import type { LayerName } from '../problems.js';
import { entry } from '../records.js';
import { reservation, type ReservedKeys } from '../reserved-keys.js';
import { countUserTags, isAwsKey } from '../validate.js';
import type { Bookkeeping, RemovalPolicy, ResourcePlan, SkipReason, TagUpdate, TagWrite } from './types.js';

type Tags = Readonly<Record<string, string>>;

/** What every resource of one plan is compared with. */
export interface PlanContext {
  clusterName: string;
  /** The effective tags Keymaster writes (ownership keys already left out). */
  desired: Tags;
  /** The layer each desired key comes from, as the resource's memory records it. */
  layers: Readonly<Record<string, LayerName>>;
  /** The layers whose dropped keys the Delete policy may remove (see `PlanInput.standingLayers`). */
  standing: ReadonlySet<LayerName>;
  /** status.tagging.managedTags: only to name why a value changed and to report conflicts, never to remove. */
  managedTags: Tags;
  removalPolicy: RemovalPolicy;
  reservedKeys: ReservedKeys;
  /** The claim value this cluster writes on its resources (`claimOf`), if it claims them. */
  claim?: string | undefined;
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
  const memory = new ResourceMemory(live);
  if (context.removalPolicy === 'Delete') {
    for (const [key, current] of Object.entries(live)) {
      if (Object.hasOwn(context.desired, key) || !removable(key, context.reservedKeys)) continue;
      const writer = memory.writer(key, current);
      // Only what Keymaster itself wrote, from a layer that still stands, is ever removed.
      if (writer !== undefined && context.standing.has(writer)) remove.push({ key, value: current });
    }
  }
  const conflicts = removalConflicts(live, context);

  for (const { key, value } of remove) memory.forget(key, value);
  for (const { key, from, to } of update) memory.write(context.layers[key]!, key, to, from);
  const withAdds = bookkeeping(memory, add, live, context);
  const userTags = countUserTags(live) + add.length - remove.length + bookkeepingCount(withAdds, live);
  if (add.length > 0 && userTags > LIMITS.tagsPerResource) {
    const overLimit = { limit: LIMITS.tagsPerResource, userTags, withheld: add };
    const records = bookkeeping(memory, [], live, context);
    return { arn, region, outcome: 'OverLimit', add: [], update, remove, conflicts, ...records, overLimit };
  }
  const changes = add.length + update.length + remove.length + Object.keys(withAdds).length;
  return { arn, region, outcome: changes > 0 ? 'Change' : 'InSync', add, update, remove, conflicts, ...withAdds };
}

/** Keys the Delete policy may consider at all: never AWS's, ownership, reserved or Keymaster's own keys. */
const removable = (key: string, reservedKeys: ReservedKeys) =>
  !isOwnershipKey(key) && !isAwsKey(key) && reservation(key, reservedKeys) === undefined;

/** Dropped keys that status says were applied with another value than the live one (a report only). */
function removalConflicts(live: Tags, context: PlanContext): ResourcePlan['conflicts'] {
  if (context.removalPolicy !== 'Delete') return [];
  return Object.entries(context.managedTags).flatMap(([key, applied]) => {
    const current = entry(live, key);
    if (current === undefined || current === applied || Object.hasOwn(context.desired, key)) return [];
    return removable(key, context.reservedKeys) ? [{ key, live: current, applied }] : [];
  });
}

/**
 * Keymaster's own tags after the writes (the claim, and the memory with `adds` recorded), as the
 * plan's `bookkeeping` field: absent when they need no change.
 */
function bookkeeping(
  memory: ResourceMemory,
  adds: readonly TagWrite[],
  live: Tags,
  context: PlanContext,
): { bookkeeping?: Bookkeeping } {
  const scratch = memory.copy();
  for (const { key, value } of adds) scratch.write(context.layers[key]!, key, value);
  const { set, remove } = scratch.changes();
  if (context.claim !== undefined && entry(live, CLAIM_KEY) !== context.claim) set[CLAIM_KEY] = context.claim;
  if (Object.keys(set).length === 0 && remove.length === 0) return {};
  const writes = Object.entries(set)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => ({ key, value }));
  return { bookkeeping: { set: writes, remove } };
}

/** How many user tags the bookkeeping adds to the resource (new keys less removed ones). */
const bookkeepingCount = ({ bookkeeping: records }: { bookkeeping?: Bookkeeping }, live: Tags) =>
  (records?.set.filter(({ key }) => entry(live, key) === undefined).length ?? 0) - (records?.remove.length ?? 0);

function updateReason(key: string, current: string, context: PlanContext): TagUpdate['reason'] {
  const applied = entry(context.managedTags, key);
  if (applied === undefined) return 'Adopted';
  return applied === current ? 'PolicyChanged' : 'Drift';
}
