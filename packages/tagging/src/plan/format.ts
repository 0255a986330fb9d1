import { CLUSTER_API_LAYER, type TagSource } from '@keymaster/api';
import { CLUSTER_API_CONFLICT_FIX } from '../layers.js';
import { summarizePlan } from './summary.js';
import type { ResourcePlan, TagPlan, TagUpdate } from './types.js';

export interface FormatOptions {
  /** List resources that need no change too. Default false: they are only counted. */
  showInSync?: boolean;
}

const quote = (value: string) => JSON.stringify(value);
const source = ({ object, layer, overridePolicy }: TagSource) =>
  `${object} (${[layer, ...(overridePolicy === 'Deny' ? ['Deny'] : [])].join(', ')})`;

const UPDATE_REASONS: Record<TagUpdate['reason'], string> = {
  PolicyChanged: 'the layers changed it',
  Drift: 'edited outside Keymaster',
  Adopted: 'not managed by Keymaster before',
};

/** The plan as a person reads it: the dry run shown by the CLI and summed up in status. */
export function formatPlan(plan: TagPlan, options: FormatOptions = {}): string {
  const summary = summarizePlan(plan);
  const shared = plan.includeShared ? 'shared resources included' : 'shared resources skipped';
  const lines = [`Tag plan for cluster ${plan.clusterName} (removal policy ${plan.removalPolicy}, ${shared})`];
  const section = (title: string, items: readonly string[]) => {
    if (items.length > 0) lines.push(`${title} (${items.length}):`, ...items.map((item) => `  ${item}`));
  };

  const tags = Object.entries(plan.tags).map(([key, claim]) => `${key} = ${quote(claim.value)}  from ${source(claim)}`);
  if (tags.length === 0) lines.push('Effective tags: none');
  section('Effective tags', tags);
  section(
    "Held by Cluster API (CAPA's spec.additionalTags: CAPA writes them, Keymaster neither writes nor removes them)",
    Object.entries(plan.held).map(([key, claim]) => `${key} = ${quote(claim.value)}  from ${source(claim)}`),
  );
  section(
    'Conflicts',
    plan.conflicts.map(
      ({ key, winner, loser }) =>
        `${key}: ${quote(winner.value)} from ${source(winner)} wins over ${quote(loser.value)} from ${source(loser)}` +
        (winner.layer === CLUSTER_API_LAYER ? `; ${CLUSTER_API_CONFLICT_FIX}` : ''),
    ),
  );
  section(
    'Tags left out',
    plan.problems.map((problem) => problem.message),
  );
  section(
    "Tags under keymaster.dev/ ignored (Keymaster writes none: they are someone else's)",
    plan.ignoredBookkeepingKeys,
  );

  const toChange = summary.resourcesDrifted - summary.resourcesOverLimit;
  lines.push(
    `Resources: ${summary.resourcesDiscovered} discovered, ${toChange} to change, ${summary.resourcesOverLimit} ` +
      `over the tag limit, ${summary.resourcesInSync} in sync, ${summary.resourcesSkipped} skipped`,
  );
  if (summary.resourcesDrifted > 0) lines.push('  (+ add, ~ update, - remove, ! left as it is)');
  const shown = plan.resources.filter((resource) => options.showInSync === true || resource.outcome !== 'InSync');
  lines.push(...shown.flatMap(resourceLines).map((line) => `  ${line}`));
  const hidden = plan.resources.length - shown.length;
  if (hidden > 0) lines.push(`  (${hidden} in sync, not shown)`);
  return lines.join('\n');
}

function resourceLines(resource: ResourcePlan): string[] {
  if (resource.skip) return [`skip ${resource.arn}: ${resource.skip.message} (${resource.skip.reason})`];
  const head = resource.outcome === 'OverLimit' ? 'over-limit' : resource.outcome === 'Change' ? 'change' : 'in-sync';
  const details = [
    ...resource.add.map(({ key, value }) => `+ ${key} = ${quote(value)}`),
    ...resource.update.map(
      ({ key, from, to, reason }) => `~ ${key}: ${quote(from)} -> ${quote(to)} (${UPDATE_REASONS[reason]})`,
    ),
    ...resource.remove.map(({ key, value }) => `- ${key} = ${quote(value)}`),
    ...(resource.legacyTags ?? []).map((key) => `- ${key} (an older release's bookkeeping, now in the ledger)`),
    ...resource.conflicts.map(
      ({ key, live, applied }) =>
        `! ${key} = ${quote(live)} left in place: Keymaster applied ${quote(applied)}, someone changed it since`,
    ),
    ...(resource.overLimit ? [overLimitLine(resource.overLimit)] : []),
  ];
  return [`${head} ${resource.arn}`, ...details.map((detail) => `    ${detail}`)];
}

function overLimitLine({ userTags, limit, withheld }: NonNullable<ResourcePlan['overLimit']>): string {
  const tags = withheld.map(({ key, value }) => `${key} = ${quote(value)}`).join(', ');
  return `! not added, the resource would carry ${userTags} user tags and AWS allows ${limit}: ${tags}`;
}
