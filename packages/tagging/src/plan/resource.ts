import { LIMITS, type TagSource } from '@keymaster/api';
import { arnRegion } from '../arn.js';
import type { ClusterMemory } from '../cluster-memory.js';
import { isKeymasterKey, LEGACY_KEYS, legacyMemory } from '../legacy.js';
import type { ResourceMemory } from '../memory.js';
import { isOwnershipKey, ownershipOf } from '../ownership.js';
import type { LayerName } from '../problems.js';
import { entry } from '../records.js';
import { reservation, type ReservedKeys } from '../reserved-keys.js';
import { countUserTags, isAwsKey } from '../validate.js';
import type { RemovalPolicy, ResourcePlan, SkipReason, TagUpdate, TagWrite } from './types.js';

type Tags = Readonly<Record<string, string>>;

/** What every resource of one plan is compared with. */
export interface PlanContext {
  clusterName: string;
  /** The effective tags Keymaster writes (ownership keys already left out). */
  desired: Tags;
  /** The layer each desired key comes from, as the resource's memory records it. */
  layers: Readonly<Record<string, LayerName>>;
  /** The keys CAPA holds (the ClusterAPI layer): never written, never removed, and forgotten from the memory. */
  held: Readonly<Record<string, TagSource>>;
  /** The layers whose dropped keys the Delete policy may remove (see `PlanInput.standingLayers`). */
  standing: ReadonlySet<LayerName>;
  /** status.tagging.managedTags: only to name why a value changed and to report conflicts, never to remove. */
  managedTags: Tags;
  removalPolicy: RemovalPolicy;
  reservedKeys: ReservedKeys;
  /** What Keymaster wrote on the cluster's resources (the ledger's memory). */
  memory: ClusterMemory;
  /** Whether the legacy bookkeeping tags are converted (their memory read, the tags removed). */
  convertLegacy: boolean;
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
  const memory = memoryBefore(arn, live, context);
  if (context.removalPolicy === 'Delete') {
    for (const [key, current] of Object.entries(live)) {
      if (Object.hasOwn(context.desired, key) || Object.hasOwn(context.held, key)) continue;
      if (!removable(key, context.reservedKeys)) continue;
      const writer = memory.writer(key, current);
      // Only what Keymaster itself wrote, from a layer that still stands, is ever removed.
      if (writer !== undefined && context.standing.has(writer)) remove.push({ key, value: current });
    }
  }
  const conflicts = removalConflicts(live, context);
  const legacyTags = context.convertLegacy ? LEGACY_KEYS.filter((key) => entry(live, key) !== undefined) : [];
  const legacy = legacyTags.length > 0 ? { legacyTags } : {};

  for (const { key, value } of remove) memory.forget(key, value);
  for (const { key, from, to } of update) memory.write(context.layers[key]!, key, to, from);
  const userTags = countUserTags(live) + add.length - remove.length - legacyTags.length;
  if (add.length > 0 && userTags > LIMITS.tagsPerResource) {
    const overLimit = { limit: LIMITS.tagsPerResource, userTags, withheld: add };
    return {
      arn,
      region,
      outcome: 'OverLimit',
      add: [],
      update,
      remove,
      conflicts,
      ...legacy,
      ...remembered(memory),
      overLimit,
    };
  }
  for (const { key, value } of add) memory.write(context.layers[key]!, key, value);
  const changes = add.length + update.length + remove.length + legacyTags.length;
  return {
    arn,
    region,
    outcome: changes > 0 ? 'Change' : 'InSync',
    add,
    update,
    remove,
    conflicts,
    ...legacy,
    ...remembered(memory),
  };
}

/**
 * What Keymaster remembers of the resource before the plan's writes: the ledger's memory, and while
 * the cluster's legacy bookkeeping is converted, what the resource's legacy memory tags say; less the
 * keys CAPA now holds, with the value on the resource and CAPA's: CAPA's to write from now on, so
 * that Delete never removes them.
 */
export function memoryBefore(
  arn: string,
  live: Tags,
  context: Pick<PlanContext, 'memory' | 'convertLegacy' | 'held'>,
): ResourceMemory {
  const memory = context.memory.of(arn);
  if (context.convertLegacy) memory.merge(legacyMemory(live));
  for (const [key, { value }] of Object.entries(context.held)) {
    memory.forget(key, value);
    const current = entry(live, key);
    if (current !== undefined) memory.forget(key, current);
  }
  return memory;
}

/** The plan's `memory` field: absent when nothing is remembered. */
const remembered = (memory: ResourceMemory): Pick<ResourcePlan, 'memory'> =>
  memory.empty ? {} : { memory: memory.prints() };

/** Keys the Delete policy may consider at all: never AWS's, ownership, reserved or Keymaster's own keys. */
const removable = (key: string, reservedKeys: ReservedKeys) =>
  !isOwnershipKey(key) && !isAwsKey(key) && !isKeymasterKey(key) && reservation(key, reservedKeys) === undefined;

/** Dropped keys that status says were applied with another value than the live one (a report only). */
function removalConflicts(live: Tags, context: PlanContext): ResourcePlan['conflicts'] {
  if (context.removalPolicy !== 'Delete') return [];
  return Object.entries(context.managedTags).flatMap(([key, applied]) => {
    const current = entry(live, key);
    if (current === undefined || current === applied) return [];
    if (Object.hasOwn(context.desired, key) || Object.hasOwn(context.held, key)) return [];
    return removable(key, context.reservedKeys) ? [{ key, live: current, applied }] : [];
  });
}

function updateReason(key: string, current: string, context: PlanContext): TagUpdate['reason'] {
  const applied = entry(context.managedTags, key);
  if (applied === undefined) return 'Adopted';
  return applied === current ? 'PolicyChanged' : 'Drift';
}
