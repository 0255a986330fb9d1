import { TaggingInputError } from '../errors.js';
import type { TagPlan } from './types.js';

/** TagResources and UntagResources take at most 20 ARNs per call, all in the region of the endpoint. */
export const MAX_ARNS_PER_CALL = 20;

/** One TagResources call: the same tags for every ARN. */
export interface TagBatch {
  region: string;
  tags: Record<string, string>;
  arns: string[];
}

/** One UntagResources call: the same keys for every ARN. */
export interface UntagBatch {
  region: string;
  keys: string[];
  arns: string[];
}

export interface PlanBatches {
  tag: TagBatch[];
  untag: UntagBatch[];
}

/**
 * Groups the plan's writes into as few calls as the APIs allow: resources that need the same tags set
 * (adds and updates together) in the same region share TagResources calls, resources that need the
 * same keys removed share UntagResources calls, at most `maxArnsPerCall` ARNs each. Skipped resources
 * and withheld adds are left out. Calls come sorted by region, then by content.
 */
export function batchPlan(plan: TagPlan, maxArnsPerCall = MAX_ARNS_PER_CALL): PlanBatches {
  if (!Number.isInteger(maxArnsPerCall) || maxArnsPerCall < 1 || maxArnsPerCall > MAX_ARNS_PER_CALL) {
    throw new TaggingInputError(
      'maxArnsPerCall',
      `is ${maxArnsPerCall}`,
      `Pass a whole number from 1 to ${MAX_ARNS_PER_CALL}, the most ARNs AWS takes per call.`,
    );
  }
  const { tag, untag } = writeGroups(plan);
  return {
    tag: tag.flatMap((group) => chunks(group.arns, maxArnsPerCall).map((arns) => ({ ...group, arns }))),
    untag: untag.flatMap((group) => chunks(group.arns, maxArnsPerCall).map((arns) => ({ ...group, arns }))),
  };
}

/**
 * The plan's writes grouped by region and identical content, every ARN of a group in one list: what
 * `batchPlan` cuts into calls, and what a retry regroups the ARNs that failed into.
 */
export function writeGroups(plan: TagPlan): PlanBatches {
  const tagGroups = new Groups<Record<string, string>>();
  const untagGroups = new Groups<string[]>();
  for (const resource of plan.resources) {
    if (resource.region === undefined) continue;
    // Only the layers' keys: identical changes stay identical across resources and clusters.
    const writes = [...resource.add, ...resource.update.map(({ key, to }) => ({ key, value: to }))];
    if (writes.length > 0) {
      const tags = Object.fromEntries(
        writes.sort((a, b) => compare(a.key, b.key)).map(({ key, value }) => [key, value]),
      );
      tagGroups.add(resource.region, tags, resource.arn);
    }
    // The legacy bookkeeping tags go in the same calls as the removals the cluster makes anyway.
    const removals = [...resource.remove.map(({ key }) => key), ...(resource.legacyTags ?? [])];
    if (removals.length > 0) untagGroups.add(resource.region, removals.sort(), resource.arn);
  }
  return {
    tag: tagGroups.list().map(({ region, content, arns }) => ({ region, tags: content, arns })),
    untag: untagGroups.list().map(({ region, content, arns }) => ({ region, keys: content, arns })),
  };
}

/** `items` cut into lists of at most `size`. */
export const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/** Code-unit order, as `Array.prototype.sort` uses for strings. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** ARNs grouped by region and identical content (compared as canonical JSON). */
class Groups<Content> {
  private readonly groups = new Map<string, { region: string; content: Content; arns: string[] }>();

  add(region: string, content: Content, arn: string): void {
    const id = JSON.stringify([region, content]);
    const group = this.groups.get(id) ?? { region, content, arns: [] };
    group.arns.push(arn);
    this.groups.set(id, group);
  }

  /** The groups, sorted by region, then by content. */
  list(): { region: string; content: Content; arns: string[] }[] {
    return [...this.groups.entries()].sort(([a], [b]) => compare(a, b)).map(([, group]) => group);
  }
}
