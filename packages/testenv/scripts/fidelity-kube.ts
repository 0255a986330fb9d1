/**
 * Runs the kube-emulator's fidelity corpus against kube-apiserver and writes the result table into
 * docs/emulators.md. `--only TEXT` runs the sequences whose name or area contains TEXT (or one of `A|B|...`) (and writes
 * nothing); `--verbose` prints both servers' normalized answers of differing sequences.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pinnedVersions, supportedVersions } from '../src/kube/binaries.js';
import { CORPUS } from '../test/fidelity/kube/corpus/index.js';
import { fidelityReport, withReport } from '../test/fidelity/kube/report.js';
import { runSequence, type SequenceResult } from '../test/fidelity/kube/runner.js';
import { startServers } from '../test/fidelity/kube/servers.js';

const DOCS = fileURLToPath(new URL('../../../docs/emulators.md', import.meta.url));
const HEADING = '## Fidelity: kube-emulator against kube-apiserver';

const { values } = parseArgs({ options: { only: { type: 'string' }, verbose: { type: 'boolean', default: false } } });
const show = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));

function print(result: SequenceResult, index: number): void {
  const { sequence, differences } = result;
  const unexplained = differences.filter((difference) => !difference.explanation);
  const verdict = differences.length === 0 ? 'same' : unexplained.length === 0 ? 'explained' : 'DIFFERENT';
  console.log(
    `${String(index + 1).padStart(3)}/${CORPUS.length} ${verdict.padEnd(9)} ${sequence.area}: ${sequence.name}`,
  );
  for (const { path, emulator, real } of unexplained) {
    console.log(
      `      ${path}\n        emulator: ${show(emulator).slice(0, 400)}\n        real:     ${show(real).slice(0, 400)}`,
    );
  }
  if (values.verbose && differences.length > 0) {
    result.answers.emulator.forEach((emulator, step) => {
      console.log(`    step ${step} ${sequence.steps[step]!.request}`);
      console.log(`      emulator ${show(emulator)}\n      real     ${show(result.answers.real[step])}`);
    });
  }
}

const started = Date.now();
const servers = await startServers((line) => console.log(line));
const results: SequenceResult[] = [];
try {
  for (const [index, sequence] of CORPUS.entries()) {
    if (values.only && !values.only.split('|').some((text) => `${sequence.area}: ${sequence.name}`.includes(text)))
      continue;
    const result = await runSequence(servers, sequence, index);
    results.push(result);
    print(result, index);
  }
} finally {
  await servers.stop();
}
const unexplained = results.filter((result) => result.differences.some((difference) => !difference.explanation));
console.log(
  `${results.length} sequences in ${((Date.now() - started) / 1000).toFixed(0)} s; ${unexplained.length} with unexplained differences`,
);
// The table in the docs is the newest minor's, the one the kube-emulator follows.
if (!values.only && pinnedVersions().kube === supportedVersions()[0]!.kube) {
  const report = fidelityReport(results, pinnedVersions());
  await writeFile(DOCS, withReport(await readFile(DOCS, 'utf8'), report, HEADING));
  console.log(`wrote the table into ${DOCS}`);
}
if (unexplained.length > 0) process.exitCode = 1;
