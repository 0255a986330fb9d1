import { expect } from 'chai';
import { appendRow, baselineRow, editRow, MARKERS, type BenchResult } from '../../scripts/bench/report.js';
import { baselineArgs, type BaselineResult } from '../../scripts/bench/baseline.js';

const DOC = [
  '# Benchmarks',
  '',
  MARKERS.cold,
  '<!-- prettier-ignore -->',
  '| a | b |',
  '| --- | --- |',
  '| 1 | 2 |',
  '',
  MARKERS.edits,
  '<!-- prettier-ignore -->',
  '| c |',
  '| --- |',
  '',
  'text',
].join('\n');

describe('bench report', () => {
  it("appends a row after the last row of the marker's table, leaving the other tables alone", () => {
    const doc = appendRow(appendRow(DOC, MARKERS.cold, '| 3 | 4 |'), MARKERS.edits, '| 5 |');
    expect(doc.split('\n')).to.deep.equal([
      '# Benchmarks',
      '',
      MARKERS.cold,
      '<!-- prettier-ignore -->',
      '| a | b |',
      '| --- | --- |',
      '| 1 | 2 |',
      '| 3 | 4 |',
      '',
      MARKERS.edits,
      '<!-- prettier-ignore -->',
      '| c |',
      '| --- |',
      '| 5 |',
      '',
      'text',
    ]);
  });

  it('says which marker is missing', () => {
    expect(() => appendRow('# Benchmarks\n', MARKERS.steady, '| x |')).to.throw(/bench:steady/);
  });
});

describe('bench report against a baseline', () => {
  const run = (commit: string, converge: number, cpuMs: number, calls: Record<string, number>, load: number) =>
    ({
      date: '2026-11-28T23:30:00.000Z',
      commit,
      scenario: { clusters: 1000, resourcesPerCluster: 20, accounts: 18, regions: 3 },
      options: { shards: 0, replicas: 1, budget: 'default', latencyMs: 0, kube: 'emulator' },
      cold: {
        convergeSeconds: converge,
        cpuMsPerCluster: cpuMs,
        made: { byAction: calls },
        kubeWritesPerCluster: 3.01,
        peakRssMiB: 200,
        load: { mean: load, max: load },
      },
    }) as unknown as BenchResult;

  it('puts each figure beside the baseline with their ratio, n/a for a phase either lacks', () => {
    const result = {
      ...run('bbbbbbb', 30, 29.3, { 'ec2:CreateTags': 1000, 'tag:GetResources': 800 }, 2.9),
      policyEdit: { reachSeconds: 9 },
    } as unknown as BenchResult;
    const baseline = run('aaaaaaa', 15, 16.1, { 'tag:TagResources': 1000, 'tag:GetResources': 500 }, 2.5);
    const cells = baselineRow(result, baseline as BaselineResult)
      .split(' | ')
      .map((cell) => cell.replace(/^\| |\s\|$/g, ''));
    expect(cells).to.deep.equal([
      '2026-11-28 23:30',
      'bbbbbbb',
      'aaaaaaa',
      '1000 × 20',
      '18 × 3',
      '1 process',
      'kube-emulator',
      '15 / 30 s (2.00 ×)',
      '16.1 / 29.3 ms (1.82 ×)',
      '1500 / 1800 (1.20 ×)',
      '3.01 / 3.01 (1.00 ×)',
      '200 / 200 MiB (1.00 ×)',
      'n/a',
      'n/a',
      '2.5 / 2.9',
    ]);
  });
});

describe('bench report of the edits', () => {
  it("ends a row with each edit's controller CPU per cluster, n/a for an edit not run", () => {
    const edit = { tagWrites: 246, minimumTagWrites: 54, getResources: 0, reachSeconds: 10.5, cpuMsPerCluster: 12.34 };
    const result = {
      date: '2026-11-29T08:00:00.000Z',
      commit: 'ccccccc',
      scenario: { clusters: 1000, resourcesPerCluster: 20, accounts: 18, regions: 3 },
      options: { shards: 0, replicas: 1, budget: 'default', latencyMs: 0, kube: 'emulator' },
      cold: { load: { mean: 3, max: 4 } },
      policyEdit: { ...edit, least: { seconds: 2.6, bound: 'API server' }, load: { mean: 3, max: 4 } },
    } as unknown as BenchResult;
    const cells = editRow(result).split(' | ');
    expect(cells.at(-1)).to.equal('12.34 ms / n/a |');
  });
});

describe('bench baseline arguments', () => {
  it("passes the run's own options to the baseline's benchmark, not --baseline", () => {
    expect(baselineArgs(['--clusters', '10000', '--baseline', '5f68b01', '--phases', 'cold'])).to.deep.equal([
      '--clusters',
      '10000',
      '--phases',
      'cold',
    ]);
    expect(baselineArgs(['--baseline=main~3', '--kube', 'real'])).to.deep.equal(['--kube', 'real']);
  });
});
