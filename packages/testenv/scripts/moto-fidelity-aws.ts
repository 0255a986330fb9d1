/**
 * `pnpm --filter @keymaster/testenv fidelity:aws`: sends the aws corpus to the aws-emulator and to
 * moto, checks every difference against the explained list, and writes the section "Fidelity:
 * aws-emulator against moto" of docs/emulators.md. Exits 1, writing nothing, on a difference that is
 * not explained or an explained one that is gone.
 */
import { startMoto } from '../src/moto/server.js';
import { compareCorpus } from '../test/fidelity/aws/corpus.js';
import { docWithSection, EMULATORS_DOC, writeDoc } from '../test/fidelity/aws/docs.js';
import { fidelitySection } from '../test/fidelity/aws/table.js';
import { judge } from '../test/fidelity/aws/verdict.js';

const moto = await startMoto();
try {
  let done = 0;
  const comparisons = await compareCorpus(moto, ({ name, differences }) => {
    done += 1;
    process.stderr.write(`[${done}] ${differences.length === 0 ? 'identical' : 'differs  '} ${name}\n`);
  });
  const verdict = judge(comparisons);
  for (const difference of verdict.unexplained) {
    process.stderr.write(`unexplained difference: ${JSON.stringify(difference)}\n`);
  }
  for (const explanation of verdict.stale) {
    process.stderr.write(`explained difference that is gone: ${explanation.sequence} / ${explanation.step}\n`);
  }
  const identical = comparisons.filter(({ differences }) => differences.length === 0).length;
  process.stdout.write(
    `${comparisons.length} sequences, ${identical} identical, ${comparisons.length - identical} differing\n`,
  );
  if (verdict.unexplained.length > 0 || verdict.stale.length > 0) {
    process.stderr.write('docs/emulators.md left as it is: explain or fix the differences above first\n');
    process.exitCode = 1;
  } else {
    const { current, wanted } = await docWithSection(fidelitySection(comparisons, verdict, moto.version));
    if (current !== wanted) await writeDoc(wanted);
    process.stdout.write(`${current === wanted ? 'unchanged' : 'wrote'} ${EMULATORS_DOC}\n`);
  }
} finally {
  await moto.stop();
}
