import { expect } from 'chai';
import { formatDuration, parseDuration } from '../../src/runtime/duration.js';

describe('parseDuration', () => {
  const cases: [string, number | undefined][] = [
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['2h45m30.5s', 9_930_500],
    ['0', 0],
    ['10', undefined],
    ['10x', undefined],
    ['m', undefined],
    ['-5s', undefined],
    ['5s ', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} -> ${String(expected)}`, () => {
      expect(parseDuration(text)).to.equal(expected);
    });
  }

  it('formats as Go does', () => {
    expect([
      formatDuration(600_000),
      formatDuration(5_400_000),
      formatDuration(250),
      formatDuration(30_000),
    ]).to.deep.equal(['10m0s', '1h30m0s', '250ms', '30s']);
  });
});
