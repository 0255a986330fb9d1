import { displayText, quoteText, type TagSource } from '@keymaster/api';
import { dumpYaml } from '@kubernetes/client-node';
import { linkName } from '@keymaster/identity';
import type { LayerName } from '@keymaster/tagging';
import { columns } from './columns.js';
import { heldLines } from './plan-why.js';
import type { Explanation, LinkVerdict } from './explain.js';
import type { ExplainOutput } from './output-format.js';

const mark = (link: LinkVerdict) => (link.problems.length > 0 ? '✗' : link.unchecked ? '?' : '✓');

const source = ({ object, layer, overridePolicy }: TagSource) =>
  `${object} (${layer}${overridePolicy === 'Deny' ? ', Deny' : ''})`;

/**
 * The chain as a tree: the cluster, its own identity under it, each source under the link it
 * serves. Every link shows what it acts with, whom it allows and each of its refusals.
 */
export function chainTree(explanation: Explanation): string[] {
  const { labels } = explanation.namespace;
  const shown =
    labels === undefined
      ? 'not read'
      : Object.entries(labels)
          .map(([key, value]) => `${key}=${value}`)
          .join(', ') || 'none';
  const lines = [`${explanation.cluster} (namespace ${explanation.namespace.name}, labels ${shown})`];
  explanation.chain.forEach((link, depth) => {
    const indent = '   '.repeat(depth);
    const last = depth === explanation.chain.length - 1;
    const details = [
      ...(link.allows !== undefined ? [`allows ${link.allows}`] : []),
      ...link.problems.map((problem) => `✗ ${problem.message}`),
      ...(link.unchecked
        ? ['? not checked here (see "Not checked"): the conditions above are the controller\'s verdict']
        : []),
    ];
    lines.push(`${indent}└─ ${mark(link)} ${linkName(link)}${link.actsWith ? `  ${link.actsWith}` : ''}`);
    for (const detail of details) lines.push(`${indent}${last ? '      ' : '   │  '}${detail}`);
  });
  return lines;
}

function principalLines({ principal }: Explanation): string[] {
  if ('failure' in principal) return [`Account and principal: ${principal.failure.message}`];
  return [`Account ${principal.accountId}, principal ${principal.principalArn}`];
}

function tagLines(explanation: Explanation): string[] {
  const layerRows = explanation.layers.map(({ layer, object, tags }) => [
    layer,
    object,
    explanation.standing.includes(layer as LayerName) ? 'yes' : 'no',
    tags.length === 0
      ? '(none)'
      : tags
          .map(
            ({ key, value, overridePolicy }) =>
              `${key}=${quoteText(value)}${overridePolicy === 'Deny' ? ' (Deny)' : ''}`,
          )
          .join(', '),
  ]);
  const winners = Object.entries(explanation.winners);
  return [
    'Tag layers, in authority order (the nearest the cluster wins, unless one above says Deny; of the Selected, the highest precedence; STANDS: removalPolicy Delete removes the keys a standing layer drops):',
    ...columns(['LAYER', 'OBJECT', 'STANDS', 'TAGS'], layerRows).map((line) => `  ${line}`),
    `Winners (${winners.length}):`,
    ...winners.map(([key, claim]) => `  ${key} = ${quoteText(claim.value)}  from ${source(claim)}`),
    ...heldLines(explanation.held, explanation.conflicts),
    ...(explanation.conflicts.length > 0 ? [`Conflicts (${explanation.conflicts.length}):`] : []),
    ...explanation.conflicts.map(
      ({ key, winner, loser }) =>
        `  ${key}: ${quoteText(winner.value)} from ${source(winner)} wins over ${quoteText(loser.value)} from ${source(loser)}`,
    ),
    ...(explanation.problems.length > 0 ? [`Tags left out (${explanation.problems.length}):`] : []),
    ...explanation.problems.map((problem) => `  ${problem}`),
  ];
}

function statusLines({ conditions }: Explanation): string[] {
  if (conditions.length === 0) return ['Conditions: none yet (the controller has not reconciled the cluster)'];
  return [
    'Conditions:',
    ...columns(
      ['TYPE', 'STATUS', 'REASON', 'MESSAGE'],
      conditions.map(({ type, status, reason, message }) => [type, status, reason, status === 'True' ? '' : message]),
    ).map((line) => `  ${line}`),
  ];
}

function ledgerLines({ ledger }: Explanation): string[] {
  if (!ledger) return ["Ledger: none yet (the controller records one with the cluster's first claim)"];
  const claims = ledger.claims.map(
    ({ clusterName, accountID, region, since }) =>
      `  clusterName "${clusterName}" in ${accountID}/${region}, since ${since}`,
  );
  return [
    `Ledger: ${ledger.claims.length} claim(s), what Keymaster wrote remembered on ${ledger.resourcesRemembered} resource(s), ${ledger.legacyTagsConverted ? `legacy tags converted ${ledger.legacyTagsConverted}` : 'legacy tags not converted yet'}`,
    ...claims,
  ];
}

function eventLines({ events }: Explanation): string[] {
  if (events.length === 0) return ['Events: none'];
  return [
    `Events (the latest ${events.length}, oldest first):`,
    ...columns(
      ['LAST SEEN', 'TYPE', 'REASON', 'COUNT', 'MESSAGE'],
      events.map(({ lastSeen, type, reason, count, message }) => [
        lastSeen ?? '-',
        type,
        reason,
        String(count),
        message,
      ]),
    ).map((line) => `  ${line}`),
  ];
}

function uncheckedLines({ unchecked }: Explanation): string[] {
  if (unchecked.length === 0) return [];
  return [
    `Not checked (${unchecked.length}): you may not read what they take`,
    ...unchecked.flatMap(({ check, message, hint }) => [
      `  - ${check}: ${message}`,
      ...(hint ? [`    fix: ${hint}`] : []),
    ]),
  ];
}

export const fixLines = ({ fixes }: Explanation): string[] =>
  fixes.length === 0
    ? ['Fix: nothing to fix']
    : [`Fix (${fixes.length}):`, ...fixes.map((fix, i) => `  ${i + 1}. ${fix}`)];

/** The explanation as a person reads it, or as JSON or YAML. */
export function renderExplanation(explanation: Explanation, output: ExplainOutput): string {
  if (output === 'json') return `${JSON.stringify(explanation, null, 2)}\n`;
  if (output === 'yaml') return dumpYaml(explanation);
  const refusing = explanation.chain.filter(({ problems }) => problems.length > 0).length;
  const unverified = explanation.chain.filter(({ unchecked }) => unchecked).length;
  const sections = [
    [`AWSCluster ${explanation.cluster}: region ${explanation.region}, clusterName ${explanation.clusterName}`],
    statusLines(explanation),
    [
      `Identity chain: ${explanation.chain.length} link(s), ${unverified > 0 ? 'as the controller last checked it, not checked here' : refusing === 0 ? 'every one allows the cluster' : `${refusing} with problems`}`,
      ...chainTree(explanation),
    ],
    principalLines(explanation),
    tagLines(explanation),
    ledgerLines(explanation),
    eventLines(explanation),
    fixLines(explanation),
    uncheckedLines(explanation),
  ].filter((lines) => lines.length > 0);
  // Messages quote tenants' and AWS's text: escaped again here, as everything shown (idempotent).
  return `${sections.map((lines) => lines.map(displayText).join('\n')).join('\n\n')}\n`;
}
