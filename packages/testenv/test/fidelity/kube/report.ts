import type { Explanation } from './explained.js';
import type { SequenceResult } from './runner.js';
import { AREAS } from './sequence.js';

/** Where the report sits in docs/emulators.md. */
export const REPORT_START = '<!-- fidelity-kube:start -->';
export const REPORT_END = '<!-- fidelity-kube:end -->';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * The Markdown tables of a corpus run: sequences, identical and differing by area, then every
 * explained difference with the sequences it appears in and its reason.
 */
export function fidelityReport(results: readonly SequenceResult[], versions: { kube: string }): string {
  const rows = AREAS.map((area) => {
    const of = results.filter((result) => result.sequence.area === area);
    const same = of.filter((result) => result.differences.length === 0).length;
    return { area, total: of.length, same, differing: of.length - same };
  }).filter((row) => row.total > 0);
  const total = rows.reduce((sum, row) => sum + row.total, 0);
  const same = rows.reduce((sum, row) => sum + row.same, 0);
  const explained = new Map<Explanation, Set<string>>();
  for (const result of results) {
    for (const difference of result.differences) {
      if (!difference.explanation) continue;
      const names = explained.get(difference.explanation) ?? new Set<string>();
      explained.set(difference.explanation, names.add(result.sequence.name));
    }
  }
  const lines = [
    `${total} request sequences, each sent to the kube-emulator and to kube-apiserver ${versions.kube} (with etcd and`,
    "kube-controller-manager's namespace, garbage-collector and resourcequota controllers) and compared after",
    'normalization.',
    '',
    '| area | sequences | identical | differing (explained) |',
    '| --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.area} | ${row.total} | ${row.same} | ${row.differing} |`),
    `| **all** | **${total}** | **${same}** | **${total - same}** |`,
  ];
  if (explained.size > 0) {
    lines.push('', '| difference | sequences | why it is accepted |', '| --- | --- | --- |');
    for (const [explanation, names] of explained) {
      lines.push(`| ${cell(explanation.title)} | ${cell([...names].join('; '))} | ${cell(explanation.reason)} |`);
    }
  }
  return lines.join('\n');
}

/** `document` with the report between its markers (added at the end, under `heading`, when absent). */
export function withReport(document: string, report: string, heading: string): string {
  const block = `${REPORT_START}\n<!-- prettier-ignore-start -->\n${report}\n<!-- prettier-ignore-end -->\n${REPORT_END}`;
  const start = document.indexOf(REPORT_START);
  const end = document.indexOf(REPORT_END);
  if (start >= 0 && end > start) return `${document.slice(0, start)}${block}${document.slice(end + REPORT_END.length)}`;
  return `${document.trimEnd()}\n\n${heading}\n\n${block}\n`;
}
