import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pinnedVersions, supportedVersions } from '../../../src/kube/binaries.js';
import { CORPUS } from './corpus/index.js';
import { fidelityReport } from './report.js';
import { applicableExplanations, runSequence, type Found, type SequenceResult } from './runner.js';
import { startServers, type Servers } from './servers.js';

const DOCS = fileURLToPath(new URL('../../../../../docs/emulators.md', import.meta.url));

const describeDifference = ({ path, emulator, real }: Found): string =>
  `  ${path}\n    emulator: ${JSON.stringify(emulator)}\n    real:     ${JSON.stringify(real)}`;

describe('fidelity: the kube-emulator answers as kube-apiserver does (test/fidelity/kube)', function () {
  this.timeout(240_000);
  let servers: Servers | undefined;
  const results: SequenceResult[] = [];

  before(async () => {
    servers = await startServers();
  });
  after(async () => {
    await servers?.stop();
  });

  for (const [index, sequence] of CORPUS.entries()) {
    it(`${sequence.area}: ${sequence.name}`, async () => {
      const result = await runSequence(servers!, sequence, index);
      results.push(result);
      const unexplained = result.differences.filter((difference) => !difference.explanation);
      expect(unexplained.map(describeDifference), 'differences not in explained.ts').to.deep.equal([]);
    });
  }

  it('has no explanation left that no difference needs', function () {
    if (results.length < CORPUS.length) this.skip();
    const used = new Set(results.flatMap((result) => result.differences.map((difference) => difference.explanation)));
    expect(
      applicableExplanations()
        .filter((explanation) => !used.has(explanation))
        .map(({ title }) => title),
    ).to.deep.equal([]);
  });

  it('matches the table in docs/emulators.md (pnpm --filter @keymaster/testenv fidelity:kube writes it)', async function () {
    // The table is the newest minor's, the one the kube-emulator follows.
    if (results.length < CORPUS.length || pinnedVersions().kube !== supportedVersions()[0]!.kube) this.skip();
    const docs = await readFile(DOCS, 'utf8');
    expect(docs).to.include(fidelityReport(results, pinnedVersions()));
  });
});
