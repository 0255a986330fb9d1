import { displayText, quoteText, type TagConflict, type TagPlanChange } from '@keymaster/api';
import { dumpYaml } from '@kubernetes/client-node';
import type { ClusterPlanReport } from './cluster-plan.js';
import { columns } from './columns.js';

export const OUTPUTS = ['table', 'json', 'yaml'] as const;
export type Output = (typeof OUTPUTS)[number];

const ACTIONS: Record<TagPlanChange['action'], string> = {
  Add: 'add',
  Update: 'update',
  Remove: 'remove',
  Withhold: 'withhold',
  Keep: 'keep',
};

const REASONS: Record<string, string> = {
  PolicyChanged: 'the layers changed it',
  Drift: 'edited outside Keymaster',
  Adopted: 'not managed before',
  Dropped: 'no layer sets it',
  TagLimit: 'over the 50-tag limit',
  ChangedSince: 'changed since Keymaster applied it',
};

/** The losing claim of a key the layers disagree on, for the CONFLICT column. */
function conflictCell(key: string, conflicts: readonly TagConflict[]): string {
  const conflict = conflicts.find((item) => item.key === key);
  if (!conflict) return '';
  const { winner, loser } = conflict;
  return `${winner.overridePolicy === 'Deny' ? 'Deny overrules' : 'overrides'} ${loser.layer} ${quoteText(loser.value)} (${loser.object})`;
}

function changeRow(change: TagPlanChange, conflicts: readonly TagConflict[]): string[] {
  const value = (text: string | undefined) => (text === undefined ? '-' : quoteText(text));
  return [
    change.resource,
    change.key,
    change.reason ? `${ACTIONS[change.action]} (${REASONS[change.reason] ?? change.reason})` : ACTIONS[change.action],
    value(change.from),
    value(change.to),
    change.layer ? `${change.layer} (${change.object ?? ''})` : '-',
    conflictCell(change.key, conflicts),
  ];
}

/** A plan's counts in a line. */
export const summaryText = (summary: NonNullable<ClusterPlanReport['summary']>): string =>
  `${summary.resourcesDiscovered} resource(s): ${summary.resourcesDrifted} to change (${summary.tagsToAdd} tag(s) to add, ` +
  `${summary.tagsToUpdate} to update, ${summary.tagsToRemove} to remove, ${summary.tagsWithheld} withheld), ` +
  `${summary.resourcesInSync} in sync, ${summary.resourcesSkipped} skipped`;

const HEADER = ['RESOURCE', 'KEY', 'CHANGE', 'FROM', 'TO', 'LAYER', 'CONFLICT'];

function clusterLines(report: ClusterPlanReport): string[] {
  const lines: string[] = [];
  if (report.outcome !== 'Planned') {
    lines.push(`${report.cluster}: no plan (${report.outcome}): ${report.failure?.message ?? ''}`);
    if (report.failure?.hint) lines.push(`  fix: ${report.failure.hint}`);
    if (report.outcome === 'Refused')
      lines.push(`  \`keymaster explain ${report.cluster}\` shows every link of the chain.`);
  } else {
    const { summary, changes = [], conflicts = [] } = report;
    lines.push(
      `${report.cluster}: account ${report.accountId ?? '-'}, regions ${report.regions?.join(', ') ?? '-'}, as ${report.principalArn ?? '-'}`,
    );
    if (changes.length > 0)
      lines.push(
        ...columns(
          HEADER,
          changes.map((change) => changeRow(change, conflicts)),
        ),
      );
    if (summary) lines.push(`${summaryText(summary)}; nothing was written`);
    for (const problem of report.problems ?? []) lines.push(`left out: ${problem}`);
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  return lines;
}

/** The plans as a person reads them (one block per cluster), or as JSON or YAML (`{clusters: [...]}`). */
export function renderPlans(reports: readonly ClusterPlanReport[], output: Output): string {
  if (output === 'json') return `${JSON.stringify({ clusters: reports }, null, 2)}\n`;
  if (output === 'yaml') return dumpYaml({ clusters: reports });
  if (reports.length === 0) return 'No AWSClusters found.\n';
  // Messages quote tenants' and AWS's text: escaped again here, as everything shown (idempotent).
  return `${reports.map((report) => clusterLines(report).map(displayText).join('\n')).join('\n\n')}\n`;
}
