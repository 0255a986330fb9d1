import { LIMITS, ownershipTagKeys } from '@keymaster/api';
import { effectiveValues, type EffectiveTags } from './effective.js';
import { TagLimitError } from './errors.js';
import { countUserTags } from './validate.js';

/** The shape of EC2's `TagSpecification` (RunInstances, CreateVolume, CreateVpc, ...). */
export interface Ec2TagSpecification<ResourceType extends string> {
  ResourceType: ResourceType;
  Tags: { Key: string; Value: string }[];
}

export interface TagSpecificationOptions {
  /** Adds the cluster's ownership tags (`owned`), so that discovery finds the new resources. */
  clusterName?: string;
  /** Tags of the creator itself, such as `Name`; the effective tags win over them. */
  extraTags?: Readonly<Record<string, string>>;
}

/**
 * EC2 `TagSpecifications` that put the effective tags on resources as they are created (one entry per
 * resource type, e.g. `instance`, `volume`, `network-interface` for RunInstances), so that no resource
 * exists untagged. Throws TagLimitError when the tags exceed AWS's limit, before any call.
 */
export function tagSpecifications<const ResourceType extends string>(
  effective: EffectiveTags,
  resourceTypes: readonly ResourceType[],
  options: TagSpecificationOptions = {},
): Ec2TagSpecification<ResourceType>[] {
  const ownership: Record<string, string> =
    options.clusterName === undefined
      ? {}
      : Object.fromEntries(ownershipTagKeys(options.clusterName).map((key) => [key, 'owned'] as const));
  const tags = { ...options.extraTags, ...effectiveValues(effective), ...ownership };
  const count = countUserTags(tags);
  if (count > LIMITS.tagsPerResource) throw new TagLimitError(count, LIMITS.tagsPerResource, 'A new resource');
  const sorted = Object.keys(tags)
    .sort()
    .map((key) => ({ Key: key, Value: tags[key]! }));
  return resourceTypes.map((ResourceType) => ({ ResourceType, Tags: sorted.map((tag) => ({ ...tag })) }));
}
