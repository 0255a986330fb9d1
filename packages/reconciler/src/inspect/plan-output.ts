import { displayText, GROUP, quoteText, type TagConflict, type TagPlanChange, type TagSource } from '@keymaster/api';
import { dumpYaml } from '@kubernetes/client-node';
import type { ClusterPlanReport } from './cluster-plan.js';
import { columns } from './columns.js';
import { elide, LINE_WIDTH, wrapText } from './line-width.js';
import type { PlanOutput } from './output-format.js';
import { diffLines, LEGEND } from './plan-diff.js';
import { conflictText, heldLines, reasonText, winnerText } from './plan-why.js';

const ACTIONS: Record<TagPlanChange['action'], string> = {
  Add: 'add',
  Update: 'update',
  Remove: 'remove',
  Withhold: 'withhold',
  Keep: 'keep',
};

function changeRow(change: TagPlanChange, conflicts: readonly TagConflict[]): string[] {
  const value = (text: string | undefined) => (text === undefined ? '-' : quoteText(text));
  return [
    change.resource,
    change.key,
    change.reason ? `${ACTIONS[change.action]} (${reasonText(change.reason)})` : ACTIONS[change.action],
    value(change.from),
    value(change.to),
    winnerText(change) ?? '-',
    conflictText(change.key, conflicts),
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
  const prose = (first: string, text: string, indent = '  ') => wrapText(first, text, indent);
  return [
    ...prose(
      '',
      `${report.cluster}: planned from what you may read, not against AWS (Partial): the tags its layers give`,
    ),
    ...(tags.length > 0
      ? tags.flatMap(([key, claim]) => {
          const conflict = conflictText(key, report.conflicts ?? []);
          return prose(
            '  ',
            `${key} = ${quoteText(claim.value)} # ${source(claim)}${conflict ? `; ${conflict}` : ''}`,
            '      ',
          );
        })
      : ['(no tags)']),
    ...prose(
      '',
      lastSync
        ? `the controller's last sync (status, ${lastSync.lastSyncTime ?? '-'}): ${lastSync.summary ?? '-'} resource(s) in sync, ${lastSync.resourcesDrifted ?? 0} drifted`
        : 'the controller has not synced it yet',
    ),
    ...heldLines(report.held ?? {}, report.conflicts ?? []).flatMap((line) => prose('', line)),
    ...(report.problems ?? []).flatMap((problem) => prose('left out: ', problem)),
    ...(report.unchecked ?? []).flatMap(({ check, message, hint }) => [
      ...prose('not checked: ', `${check}: ${message}`),
      ...(hint ? prose('  fix: ', hint, '    ') : []),
    ]),
    ...prose(
      'note: ',
      `a plan against AWS takes the cluster's own credentials, which only the controller and the platform team use: ask them for \`keymaster plan ${report.cluster}\`, ask the running controller (its inspect API), or set spec.tagging.dryRun: true to have the controller plan without writing (status.tagging.plan)`,
    ),
  ];
}

/** A plan made: who it was made as, the changes (`-o wide`: a row per key of each resource), the counts. */
function plannedLines(report: ClusterPlanReport, wide: boolean): string[] {
  const { summary, changes = [], conflicts = [] } = report;
  const regions = report.regions?.join(', ') ?? '-';
  const principal = report.principalArn ?? '-';
  const counts = summary ? [`${summaryText(summary)}; nothing was written`] : [];
  const problems = [
    ...heldLines(report.plan?.held ?? {}, conflicts),
    ...(report.problems ?? []).map((problem) => `left out: ${problem}`),
  ];
  if (wide)
    return [
      `${report.cluster}: account ${report.accountId ?? '-'}, regions ${regions}, as ${principal}`,
      ...(changes.length > 0
        ? columns(
            HEADER,
            changes.map((change) => changeRow(change, conflicts)),
          )
        : []),
      ...counts,
      ...problems,
    ];
  return [
    ...wrapText('', `${report.cluster}: account ${report.accountId ?? '-'}, regions ${regions}`, '  '),
    `  as ${elide(principal, LINE_WIDTH - 5)}`,
    ...(changes.length > 0 ? ['', ...diffLines(changes, conflicts), ''] : []),
    ...counts.flatMap((line) => wrapText('', line, '  ')),
    ...problems.flatMap((line) => wrapText('', line, '  ')),
  ];
}

function clusterLines(report: ClusterPlanReport, wide: boolean): string[] {
  // The table's prose wraps at LINE_WIDTH, every word kept; -o wide keeps a line each.
  const prose = (first: string, text: string, indent: string) =>
    wide ? [first + text] : wrapText(first, text, indent);
  const lines: string[] = [];
  if (report.outcome === 'Partial') {
    lines.push(...partialLines(report));
  } else if (report.outcome !== 'Planned') {
    lines.push(...prose(`${report.cluster}: no plan (${report.outcome}): `, report.failure?.message ?? '', '  '));
    if (report.failure?.hint) lines.push(...prose('  fix: ', report.failure.hint, '       '));
    if (report.outcome === 'Refused')
      lines.push(`  \`keymaster explain ${report.cluster}\` shows every link of the chain.`);
  } else {
    lines.push(...plannedLines(report, wide));
  }
  for (const note of report.notes) lines.push(...prose('note: ', note, '  '));
  return lines;
}

/** kubectl's `-o name` of an AWSCluster: `awscluster.GROUP/NAME`, without its namespace, as kubectl prints it. */
const nameOf = ({ cluster }: ClusterPlanReport) => `awscluster.${GROUP}/${cluster.slice(cluster.indexOf('/') + 1)}`;

/**
 * The plans as a person reads them: one block per cluster, its changes as a diff of grouped resources
 * (`table`, no line over LINE_WIDTH) or a row per key of each resource (`wide`); the clusters' names
 * (`name`); or JSON or YAML (`{clusters: [...]}`).
 */
export function renderPlans(reports: readonly ClusterPlanReport[], output: PlanOutput): string {
  if (output === 'json') return `${JSON.stringify({ clusters: reports }, null, 2)}\n`;
  if (output === 'yaml') return dumpYaml({ clusters: reports });
  if (output === 'name') return reports.map((report) => `${nameOf(report)}\n`).join('');
  if (reports.length === 0) return 'No AWSClusters found.\n';
  const wide = output === 'wide';
  const legend = !wide && reports.some(({ changes }) => changes?.length) ? [[LEGEND]] : [];
  // Messages quote tenants' and AWS's text: escaped again here, as everything shown (idempotent).
  const blocks = [...legend, ...reports.map((report) => clusterLines(report, wide))];
  return `${blocks.map((lines) => lines.map(displayText).join('\n')).join('\n\n')}\n`;
}
