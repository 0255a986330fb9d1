import { requestTagKeys, resourceTagKeys } from '../iam/context.js';
import { MAX_USER_TAGS, isSystemKey } from '../tags.js';
import type { Resource } from '../world/resources.js';

/**
 * The IAM actions that add and remove one service's tags. Tagging through the Resource Groups Tagging
 * API needs them too, for each resource, besides `tag:TagResources` / `tag:UntagResources`.
 */
const TAG_ACTIONS: Record<string, { tag: string; untag: string }> = {
  ec2: { tag: 'ec2:CreateTags', untag: 'ec2:DeleteTags' },
  elasticloadbalancing: { tag: 'elasticloadbalancing:AddTags', untag: 'elasticloadbalancing:RemoveTags' },
  rds: { tag: 'rds:AddTagsToResource', untag: 'rds:RemoveTagsFromResource' },
};

export function tagActionsFor(service: string): { tag: string; untag: string } {
  return TAG_ACTIONS[service] ?? { tag: `${service}:TagResource`, untag: `${service}:UntagResource` };
}

/** The condition keys of a tag write: the resource's current tags and the tags asked for. */
export function tagWriteKeys(resource: Resource, tags: Iterable<readonly [string, string]>): Record<string, string[]> {
  return { ...resourceTagKeys(resource.tags), ...requestTagKeys(tags) };
}

/** Whether setting these tags would leave the resource with more than 50 user tags. */
export function wouldExceedTagLimit(resource: Resource, tags: readonly (readonly [string, string])[]): boolean {
  const keys = new Set([...resource.tags.keys()].filter((key) => !isSystemKey(key)));
  for (const [key] of tags) keys.add(key);
  return keys.size > MAX_USER_TAGS;
}
