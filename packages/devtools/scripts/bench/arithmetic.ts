/**
 * The benchmark's arithmetic, pure: the fewest AWS calls a change needs per account and region, the
 * time a tagging budget allows for them, and the share of reconciles that were requeue bounces.
 */

import { AWS_BUDGETS, type ApiFamily } from '@keymaster/api';
import { tagChangeGroups, writesFor } from '../../src/demo/minimums.js';

/** An AWS resource and its tags, as the aws-emulator lists them. */
export interface TaggedResource {
  arn: string;
  tags: Record<string, string>;
}

/** A tagging budget per account and region: a token bucket of `burst`, refilled at `ratePerSecond` (Infinity: none). */
export interface Budget {
  ratePerSecond: number;
  burst: number;
}

/** The budgets of an account and region, one per API family (GetResources; TagResources; EC2's CreateTags; ...). */
export type Budgets = Readonly<Record<ApiFamily, Budget>>;

/** `keymaster run`'s default budgets: AWS's quotas (--aws-tagging-read-rate, --aws-ec2-write-rate, ...). */
export const DEFAULT_BUDGETS: Budgets = AWS_BUDGETS;

/** No budget: the time the calls take is not bounded by one. */
export const NO_BUDGET: Budget = { ratePerSecond: Infinity, burst: 0 };

/** GetResources answers at most 100 resources a page. */
const RESOURCES_PER_PAGE = 100;

/** `account/region` of an ARN (arn:aws:ec2:REGION:ACCOUNT:...). */
export function scopeOf(arn: string): string {
  const [, , , region = '', account = ''] = arn.split(':');
  return `${account}/${region}`;
}

const add = (counts: Map<string, number>, key: string, count = 1) => counts.set(key, (counts.get(key) ?? 0) + count);

/**
 * The fewest GetResources pages that list every resource of each account and region (one listing,
 * 100 resources a page): the cheapest exact discovery when every tagged resource belongs to a cluster.
 */
export function discoveryPages(resources: readonly TaggedResource[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { arn } of resources) add(counts, scopeOf(arn));
  return new Map([...counts].map(([scope, count]) => [scope, Math.ceil(count / RESOURCES_PER_PAGE)]));
}

/**
 * The fewest tag writes that turn `before` into `after`, per account and region (`writes`), and per
 * API family and account and region (`byFamily`): one write per identical set of tags (one removal
 * per identical set of removed keys) for every 20 resources of the Tagging API, every 1,000 of EC2's
 * CreateTags/DeleteTags, whichever clusters own them.
 */
export function batchedTagWrites(
  before: readonly TaggedResource[],
  after: readonly TaggedResource[],
): { resources: number; writes: Map<string, number>; byFamily: Map<ApiFamily, Map<string, number>> } {
  const { resources, groups } = tagChangeGroups(before, after, scopeOf);
  const writes = new Map<string, number>();
  const byFamily = new Map<ApiFamily, Map<string, number>>();
  for (const group of groups) {
    add(writes, group.scope, writesFor(group));
    const family = byFamily.get(group.family) ?? new Map<string, number>();
    add(family, group.scope, writesFor(group));
    byFamily.set(group.family, family);
  }
  return { resources, writes, byFamily };
}

/** Per scope, the sum of several per-scope counts. */
export function sumByScope(...counts: readonly Map<string, number>[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const map of counts) for (const [scope, count] of map) add(sum, scope, count);
  return sum;
}

export const total = (counts: ReadonlyMap<string, number>): number =>
  [...counts.values()].reduce((sum, count) => sum + count, 0);

/** The seconds a budget needs to let `calls` requests through, starting with a full bucket. */
export function budgetSeconds(calls: number, { ratePerSecond, burst }: Budget): number {
  return Math.max(0, calls - burst) / ratePerSecond;
}

/** The account and region with the most calls, and the time the budget allows for them: what bounds the run. */
export function busiest(
  calls: ReadonlyMap<string, number>,
  budget: Budget,
): { scope: string; calls: number; seconds: number } {
  let top = { scope: '', calls: 0 };
  for (const [scope, count] of calls) if (count > top.calls) top = { scope, calls: count };
  return { ...top, seconds: budgetSeconds(top.calls, budget) };
}

/**
 * What bounds the run: each family's busiest account and region at that family's budget (`NO_BUDGET`
 * without budgets), the slowest of them. The families' budgets are spent side by side.
 */
export function slowest(
  calls: ReadonlyMap<ApiFamily, ReadonlyMap<string, number>>,
  budgets: Budgets | undefined,
): { family: ApiFamily | undefined; scope: string; calls: number; seconds: number } {
  let bound: ReturnType<typeof slowest> = { family: undefined, scope: '', calls: 0, seconds: 0 };
  for (const [family, counts] of calls) {
    const top = busiest(counts, budgets?.[family] ?? NO_BUDGET);
    if (top.seconds > bound.seconds || (top.seconds === bound.seconds && top.calls > bound.calls))
      bound = { family, ...top };
  }
  return bound;
}

/** `part` as a percentage of `whole`, one decimal (0 when there is no whole). */
export const percent = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10;

/**
 * The sessions a role link needs over `seconds` of use when each lasts `lifetimeSeconds`: at least
 * one per lifetime; one more when the run's phase ends a session just before a use.
 */
export function sessionsNeeded(seconds: number, lifetimeSeconds: number): { least: number; most: number } {
  const least = Math.ceil(seconds / lifetimeSeconds);
  return { least, most: least + 1 };
}

/** What bounds a phase from below: AWS's budgets for its calls, or the API server for its writes. */
export interface LeastTime {
  seconds: number;
  bound: 'AWS' | 'API server';
}

/**
 * The least time a phase can take: the larger of the time AWS's budgets allow for its fewest calls
 * (`budgetSeconds`; none when lifted) and the time the API server needs for its fewest writes, at the
 * rate measured for the Kubernetes floor (`floor`: so many writes in so many seconds).
 */
export function leastTime(
  budgetSeconds: number | undefined,
  kubeWrites: number,
  floor: { writes: number; seconds: number },
): LeastTime {
  const api = floor.writes === 0 ? 0 : (kubeWrites * floor.seconds) / floor.writes;
  const aws = budgetSeconds ?? 0;
  return aws >= api
    ? { seconds: Math.round(aws * 10) / 10, bound: 'AWS' }
    : { seconds: Math.round(api * 10) / 10, bound: 'API server' };
}
