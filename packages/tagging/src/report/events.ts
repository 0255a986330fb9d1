import { EventReason, LIMITS } from '@keymaster/api';
import type { TagFailure } from '../apply/types.js';
import type { TagPlan } from '../plan/types.js';

/** A Kubernetes Event worth recording on the AWSCluster. */
export interface TaggingEvent {
  type: 'Normal' | 'Warning';
  /** CamelCase: `TagsApplied`, `TagDriftCorrected`, `TaggingAccessDenied`, `TaggingFailed`, `TagsNotVerified`, `TagLimitExceeded`. */
  reason: string;
  message: string;
}

/** What a reconcile applied to one resource, verified by reading the tags back. */
export interface AppliedChange {
  arn: string;
  region: string;
  /** Tags set (added, or updated to the effective value). */
  set: Record<string, string>;
  /** Keys removed. */
  removed: string[];
}

/** Events say what changed; a few examples name resources, the rest are counted. */
const EXAMPLES = 3;
/** Event messages past this many characters are cut (the API server refuses long ones). */
const MAX_MESSAGE = 1000;

/**
 * The events of one reconcile: what was applied and what drift was set back (Normal), what failed,
 * by action, AWS code and region, and which resources are over the tag limit (Warning). A reconcile
 * that changed nothing and met no failure has none.
 */
export function taggingEvents(
  plan: TagPlan,
  outcome: { accountId: string; applied: readonly AppliedChange[]; failed: readonly TagFailure[] },
): TaggingEvent[] {
  const events: TaggingEvent[] = [];
  const { applied, failed, accountId } = outcome;
  if (applied.length > 0) {
    const set = distinct(applied.flatMap((change) => Object.keys(change.set)));
    const removed = distinct(applied.flatMap((change) => change.removed));
    const regions = distinct(applied.map(({ region }) => region));
    const what = [
      ...(set.length > 0 ? [`set ${set.join(', ')}`] : []),
      ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
    ];
    events.push(
      normal(
        EventReason.TagsApplied,
        `Updated the tags of ${plural(applied.length, 'resource')} in ${regions.join(', ')}: ${what.join('; ')}`,
      ),
    );
  }

  const appliedArns = new Set(applied.map(({ arn }) => arn));
  const drift = plan.resources
    .filter(({ arn }) => appliedArns.has(arn))
    .flatMap(({ arn, update }) =>
      update.filter(({ reason }) => reason === 'Drift').map((change) => ({ arn, ...change })),
    );
  if (drift.length > 0) {
    const resources = distinct(drift.map(({ arn }) => arn)).length;
    const examples = drift.map(
      ({ arn, key, from, to }) => `${key} on ${arn} (${JSON.stringify(from)} -> ${JSON.stringify(to)})`,
    );
    events.push(
      normal(
        EventReason.TagDriftCorrected,
        `Set back ${plural(drift.length, 'tag')} edited outside Keymaster on ${plural(resources, 'resource')}: ${listed(examples)}`,
      ),
    );
  }

  const groups = new Map<string, TagFailure[]>();
  for (const failure of failed) {
    const key = JSON.stringify([failure.kind, failure.code, failure.action, failure.region]);
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  for (const group of groups.values()) {
    const { kind, code, action, region, message } = group[0]!;
    const reason =
      kind === 'AccessDenied'
        ? EventReason.TaggingAccessDenied
        : kind === 'NotVerified'
          ? EventReason.TagsNotVerified
          : EventReason.TaggingFailed;
    const arns = distinct(group.map(({ arn }) => arn));
    events.push(
      warning(
        reason,
        `${action} failed for ${plural(arns.length, 'resource')} in account ${accountId}, region ${region}: ${code}: ${message} (${listed(arns)})`,
      ),
    );
  }

  const overLimit = plan.resources.filter(({ overLimit }) => overLimit !== undefined);
  if (overLimit.length > 0) {
    const withheld = distinct(overLimit.flatMap(({ overLimit: limit }) => limit!.withheld.map(({ key }) => key)));
    events.push(
      warning(
        EventReason.TagLimitExceeded,
        `${plural(overLimit.length, 'resource')} would carry more than ${LIMITS.tagsPerResource} user tags; not added: ${withheld.join(', ')} (${listed(overLimit.map(({ arn }) => arn))})`,
      ),
    );
  }
  return events;
}

const normal = (reason: string, message: string): TaggingEvent => ({ type: 'Normal', reason, message: cut(message) });
const warning = (reason: string, message: string): TaggingEvent => ({ type: 'Warning', reason, message: cut(message) });
const cut = (message: string) => (message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message);
const distinct = (items: readonly string[]) => [...new Set(items)].sort();
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const listed = (items: readonly string[]) =>
  items.length > EXAMPLES
    ? `${items.slice(0, EXAMPLES).join(', ')} and ${items.length - EXAMPLES} more`
    : items.join(', ');
