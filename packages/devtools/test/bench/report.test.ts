import { expect } from 'chai';
import { appendRow, MARKERS } from '../../scripts/bench/report.js';

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
