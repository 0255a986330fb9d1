import { expect } from 'chai';
import { withMoto } from '../../moto/support/moto.js';
import { compareCorpus, CORPUS, type Comparison } from './corpus.js';
import { docWithSection } from './docs.js';
import { fidelitySection } from './table.js';
import { judge, type Verdict } from './verdict.js';

describe('differential fidelity: the aws-emulator against moto', function () {
  this.timeout(600_000);
  const holder = withMoto();
  let comparisons: Comparison[];
  let verdict: Verdict;

  before(async function () {
    this.timeout(600_000);
    comparisons = await compareCorpus(holder.moto);
    verdict = judge(comparisons);
  });

  it('has at least 40 sequences, each named once', () => {
    const names = CORPUS.map(({ name }) => name);
    expect(names.length).to.be.at.least(40);
    expect(new Set(names).size).to.equal(names.length);
  });

  it('differs from moto only where the list of explained differences says, and as it says', () => {
    const shown = (items: unknown[]) => JSON.stringify(items, null, 2);
    expect(verdict.unexplained, `unexplained differences: ${shown(verdict.unexplained)}`).to.deep.equal([]);
    expect(verdict.stale, `explained differences that are gone: ${shown(verdict.stale)}`).to.deep.equal([]);
  });

  it('docs/emulators.md holds the table of this run (pnpm --filter @keymaster/testenv fidelity:aws writes it)', async () => {
    const { current, wanted } = await docWithSection(fidelitySection(comparisons, verdict, holder.moto.version));
    expect(current).to.equal(wanted);
  });
});
