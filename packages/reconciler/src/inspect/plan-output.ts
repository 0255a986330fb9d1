import { displayText, quoteText, type TagConflict, type TagPlanChange, type TagSource } from '@keymaster/api';
import { dumpYaml } from '@kubernetes/client-node';
import type { ClusterPlanReport } from './cluster-plan.js';
import { columns } from './columns.js';
import type { Output } from './output-format.js';

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

/** A `Partial` plan: the tags the readable layers give, what the controller last synced, what was not checked. */
function partialLines(report: ClusterPlanReport): string[] {
  const tags = Object.entries(report.tags ?? {});
  const source = ({ object, layer }: TagSource) => `${layer} (${object})`;
  const { lastSync } = report;
  return [
    `${report.cluster}: planned from what you may read, not against AWS (Partial): the tags its layers give`,
    ...(tags.length > 0
      ? columns(
          ['KEY', 'VALUE', 'LAYER', 'CONFLICT'],
          tags.map(([key, claim]) => [
            key,
            quoteText(claim.value),
            source(claim),
            conflictCell(key, report.conflicts ?? []),
          ]),
        )
      : ['(no tags)']),
    lastSync
      ? `the controller's last sync (status, ${lastSync.lastSyncTime ?? '-'}): ${lastSync.summary ?? '-'} resource(s) in sync, ${lastSync.resourcesDrifted ?? 0} drifted`
      : 'the controller has not synced it yet',
    ...(report.problems ?? []).map((problem) => `left out: ${problem}`),
    ...(report.unchecked ?? []).flatMap(({ check, message, hint }) => [
      `not checked: ${check}: ${message}`,
      ...(hint ? [`  fix: ${hint}`] : []),
    ]),
    `note: a plan against AWS takes the cluster's own credentials, which only the controller and the platform team use: ask them for \`keymaster plan ${report.cluster}\`, or set spec.tagging.dryRun: true to have the controller plan without writing (status.tagging.plan)`,
  ];
}

function clusterLines(report: ClusterPlanReport): string[] {
  const lines: string[] = [];
  if (report.outcome === 'Partial') {
    lines.push(...partialLines(report));
  } else if (report.outcome !== 'Planned') {
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
