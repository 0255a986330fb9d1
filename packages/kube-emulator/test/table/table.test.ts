import { expect } from 'chai';
import { age, humanDuration } from '../../src/table/age.js';
import { compileJsonPath } from '../../src/table/jsonpath.js';

describe('table printing', () => {
  it('formats ages like the apiserver', () => {
    const cases: [number, string][] = [
      [5_000, '5s'],
      [119_000, '119s'],
      [150_000, '2m30s'],
      [3 * 3600_000, '3h'],
      [3 * 3600_000 + 60_000, '3h1m'],
      [30 * 3600_000, '30h'],
      [50 * 3600_000, '2d2h'],
      [400 * 86400_000, '400d'],
      [800 * 86400_000, '2y70d'],
    ];
    for (const [milliseconds, text] of cases) expect(humanDuration(milliseconds)).to.equal(text);
    expect(age(undefined)).to.equal('<unknown>');
  });

  it('evaluates the JSONPath of printer columns', () => {
    const object = {
      status: {
        conditions: [
          { type: 'Synced', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
      spec: { 'a.b': 1, list: [1, 2] },
    };
    expect(compileJsonPath('.status.conditions[?(@.type=="Ready")].status')(object)).to.deep.equal(['True']);
    expect(compileJsonPath(".spec['a.b']")(object)).to.deep.equal([1]);
    expect(compileJsonPath('.spec.list[1]')(object)).to.deep.equal([2]);
    expect(compileJsonPath('.spec.list[*]')(object)).to.deep.equal([1, 2]);
    expect(compileJsonPath('.spec.missing')(object)).to.deep.equal([]);
  });
});
