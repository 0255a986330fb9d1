import { ClusterMemory } from '../cluster-memory.js';
import type { EffectiveTags } from '../effective.js';
import { ignoredKeymasterKeys } from '../legacy.js';
import { TaggingInputError } from '../errors.js';
import { LAYERS } from '../memory.js';
import { isOwnershipKey } from '../ownership.js';
import { tagProblem, type LayerClaim, type LayerName, type TagProblem } from '../problems.js';
import { DEFAULT_RESERVED_KEYS, type ReservedKeys } from '../reserved-keys.js';
import { planResource } from './resource.js';
import type { RemovalPolicy, TagPlan } from './types.js';

type Tags = Readonly<Record<string, string>>;

export interface PlanInput {
  /** The name in the cluster's ownership tags (spec.clusterName, default metadata.name). */
  clusterName: string;
  effective: EffectiveTags;
  /** ARN -> the resource's live tags, as discovery found them. */
  resources: Readonly<Record<string, Tags>>;
  /** ARN -> region for ARNs that carry none (S3 buckets): the region discovery found them in. */
  regions?: Tags;
  /**
   * status.tagging.managedTags: what status says this cluster applied before. Only names why a value
   * changes (Drift, PolicyChanged, Adopted) and reports conflicts; removal never reads it.
   */
  managedTags?: Tags;
  /** Default Retain. */
  removalPolicy?: RemovalPolicy;
  /**
   * The layers that still stand: under Delete, a key Keymaster wrote from one of them and that no layer
   * sets any more is removed; a key written from a layer that is gone (policy deleted, resourceTags
   * cleared, re-created within the grace period) stays. Default: every layer.
   */
  standingLayers?: readonly LayerName[];
  /**
   * What Keymaster wrote on the cluster's resources (its AWSClusterLedger's memory). Removal reads it,
   * never the resources' tags. Default: nothing remembered.
   */
  memory?: ClusterMemory;
  /**
   * Convert the bookkeeping tags of releases up to 0.2.0 on the resources (once per cluster): their
   * memory counts as the ledger's, and the plan removes them. Default false: every keymaster.dev/ tag
   * is someone else's, ignored and never removed.
   */
  convertLegacy?: boolean;
  /** The keys never removed (besides ownership and `aws:` keys). Default `DEFAULT_RESERVED_KEYS`. */
  reservedKeys?: ReservedKeys;
  /** Also tag resources whose ownership tag for this cluster says `shared`. Default false. */
  includeShared?: boolean;
}

/**
 * The dry run: which tags to add, update and remove on each resource, and why resources are left
 * alone. Pure: it reads only its input, and the result is plain JSON.
 */
export function planTags(input: PlanInput): TagPlan {
  checkClusterName(input.clusterName);
  const tags: [string, LayerClaim][] = [];
  const problems: TagProblem[] = [...input.effective.problems];
  for (const [key, source] of Object.entries(input.effective.tags)) {
    // Only reachable when the reserved keys were configured without kubernetes.io and sigs.k8s.io.
    if (isOwnershipKey(key)) {
      problems.push(
        tagProblem(source, key, 'OwnershipKey', 'ownership tags are never written or removed by Keymaster'),
      );
    } else {
      tags.push([key, source]);
    }
  }
  const context = {
    clusterName: input.clusterName,
    desired: Object.fromEntries(tags.map(([key, source]) => [key, source.value])),
    layers: Object.fromEntries(tags.map(([key, source]) => [key, source.layer])),
    held: input.effective.held,
    standing: new Set(input.standingLayers ?? LAYERS),
    managedTags: input.managedTags ?? {},
    removalPolicy: input.removalPolicy ?? 'Retain',
    reservedKeys: input.reservedKeys ?? DEFAULT_RESERVED_KEYS,
    memory: input.memory ?? new ClusterMemory(),
    convertLegacy: input.convertLegacy ?? false,
    includeShared: input.includeShared ?? false,
    regions: input.regions ?? {},
  };
  return {
    clusterName: context.clusterName,
    removalPolicy: context.removalPolicy,
    includeShared: context.includeShared,
    tags: Object.fromEntries(tags),
    held: input.effective.held,
    conflicts: input.effective.conflicts.filter((conflict) => !isOwnershipKey(conflict.key)),
    problems,
    resources: Object.keys(input.resources)
      .sort()
      .map((arn) => planResource(arn, input.resources[arn]!, context)),
    ignoredBookkeepingKeys: ignoredKeymasterKeys(input.resources, context),
  };
}

/** Throws `TaggingInputError` for a cluster name that cannot be in ownership tags. */
export function checkClusterName(clusterName: string): void {
  if (clusterName === '') {
    throw new TaggingInputError(
      'clusterName',
      'is empty',
      'Pass spec.clusterName, or metadata.name, of the AWSCluster.',
    );
  }
}
