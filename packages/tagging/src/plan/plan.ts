import type { TagSource } from '@keymaster/api';
import type { EffectiveTags } from '../effective.js';
import { TaggingInputError } from '../errors.js';
import { isOwnershipKey } from '../ownership.js';
import { tagProblem, type TagProblem } from '../problems.js';
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
  /** status.tagging.managedTags: the keys this cluster applied before, with the values applied. */
  managedTags?: Tags;
  /** Default Retain. */
  removalPolicy?: RemovalPolicy;
  /** Also tag resources whose ownership tag for this cluster says `shared`. Default false. */
  includeShared?: boolean;
}

/**
 * The dry run: which tags to add, update and remove on each resource, and why resources are left
 * alone. Pure: it reads only its input, and the result is plain JSON.
 */
export function planTags(input: PlanInput): TagPlan {
  checkClusterName(input.clusterName);
  const tags: [string, TagSource][] = [];
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
    managedTags: input.managedTags ?? {},
    removalPolicy: input.removalPolicy ?? 'Retain',
    includeShared: input.includeShared ?? false,
    regions: input.regions ?? {},
  };
  return {
    clusterName: context.clusterName,
    removalPolicy: context.removalPolicy,
    includeShared: context.includeShared,
    tags: Object.fromEntries(tags),
    conflicts: input.effective.conflicts.filter((conflict) => !isOwnershipKey(conflict.key)),
    problems,
    resources: Object.keys(input.resources)
      .sort()
      .map((arn) => planResource(arn, input.resources[arn]!, context)),
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
