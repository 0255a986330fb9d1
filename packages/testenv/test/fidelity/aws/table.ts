import type { Comparison } from './corpus.js';
import type { Deviation } from './explained.js';
import type { Verdict } from './verdict.js';

/** Where the section sits in docs/emulators.md: between these two lines, written by `fidelity:aws`. */
export const BEGIN =
  '<!-- fidelity:aws begin: written by `pnpm --filter @keymaster/testenv fidelity:aws`, do not edit -->';
export const END = '<!-- fidelity:aws end -->';

const DEPARTS: Record<Deviation, string> = {
  moto: 'moto',
  'aws-emulator': 'aws-emulator',
  wording: 'neither (wording)',
};

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The section "Fidelity: aws-emulator against moto", from a corpus run every difference of which is explained. */
export function fidelitySection(comparisons: readonly Comparison[], verdict: Verdict, motoVersion: string): string {
  const differing = comparisons.filter(({ differences }) => differences.length > 0).length;
  const count = (deviation: Deviation) =>
    verdict.explained.filter(({ explanation }) => explanation.deviates === deviation).length;
  // One row per reason: the steps it explains, each with what the two sides answered.
  const groups = new Map<string, Verdict['explained']>();
  for (const item of verdict.explained) {
    groups.set(item.explanation.reason, [...(groups.get(item.explanation.reason) ?? []), item]);
  }
  const rows = [...groups.entries()].map(([reason, items]) => {
    const steps = items.map(
      ({ sequence, difference, explanation: { outcomes } }) =>
        `\`${sequence}\` ${cell(difference.step)}: ${outcomes.awsEmulator} / ${outcomes.moto}`,
    );
    return `| ${steps.join('<br>')} | ${DEPARTS[items[0]!.explanation.deviates]} | ${cell(reason)} |`;
  });
  return [
    BEGIN,
    '',
    `The corpus in \`packages/testenv/test/fidelity/aws/\` sends each request sequence with the AWS SDK for JavaScript v3 to a fresh aws-emulator and to moto ${motoVersion} (reset, then set up alike: the same account, controller user, roles and resources, made through moto's own APIs), and compares the answers step by step: HTTP status, error code and message, and the body, normalized (IDs each side made up become \`instance#1\`, secrets and tokens their shape, times their distance from now, unordered lists sorted). A sequence records what it is about: pages through GetResources as the sizes of its pages and the resources found (which resource lands on which page follows the IDs each side made up), AssumeRole's PackedPolicySize only where session policies or tags are passed and in the first AssumeRole sequence, GetResources' raw answer (its last PaginationToken) in one sequence. Each difference was checked against AWS's documentation; the test \`test/fidelity/aws/fidelity.real.ts\` fails on any difference not listed here, and on a listed one that went away.`,
    '',
    '| sequences | identical | differing | steps that differ | moto departs from AWS | the aws-emulator departs | wording only |',
    '| --------: | --------: | --------: | ----------------: | --------------------: | -----------------------: | -----------: |',
    `| ${comparisons.length} | ${comparisons.length - differing} | ${differing} | ${verdict.explained.length} | ${count('moto')} | ${count('aws-emulator')} | ${count('wording')} |`,
    '',
    '| sequence, step: what the aws-emulator / moto answered | departs from AWS | why |',
    '| ------------------------------------------------------ | ---------------- | --- |',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** `docs` with the section replaced (or added at the end, under its heading, the first time). */
export function withSection(docs: string, section: string): string {
  const begin = docs.indexOf(BEGIN);
  const end = docs.indexOf(END);
  if (begin < 0 || end < begin) return `${docs.trimEnd()}\n\n## Fidelity: aws-emulator against moto\n\n${section}\n`;
  return `${docs.slice(0, begin)}${section}${docs.slice(end + END.length)}`;
}
