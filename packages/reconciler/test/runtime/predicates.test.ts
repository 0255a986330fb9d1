import { expect } from 'chai';
import {
  annotationsChanged,
  anyOf,
  deletionChanged,
  finalizersChanged,
  generationChanged,
  labelsChanged,
  specOrMetadataChanged,
} from '../../src/runtime/predicates.js';

const base = {
  metadata: { generation: 1, labels: { a: '1' }, annotations: { b: '2' }, finalizers: ['f'] },
  status: { ready: true },
};
const edited = (metadata: object) => ({ ...base, metadata: { ...base.metadata, ...metadata } });

describe('predicates', () => {
  const cases: [string, object, string[]][] = [
    ['a status write', { ...base, status: { ready: false } }, []],
    ['a spec edit', edited({ generation: 2 }), ['generation']],
    ['a label edit', edited({ labels: { a: '2' } }), ['labels']],
    ['an annotation edit', edited({ annotations: {} }), ['annotations']],
    ['a finalizer removed', edited({ finalizers: [] }), ['finalizers']],
    ['a deletion', edited({ deletionTimestamp: '2026-01-01T00:00:00Z' }), ['deletion']],
  ];
  const named = {
    generation: generationChanged,
    labels: labelsChanged,
    annotations: annotationsChanged,
    finalizers: finalizersChanged,
    deletion: deletionChanged,
  };
  for (const [what, object, changed] of cases)
    it(`${what}: ${changed.join(', ') || 'nothing'} changed`, () => {
      const passing = Object.entries(named)
        .filter(([, predicate]) => predicate(object, base))
        .map(([name]) => name);
      expect(passing).to.deep.equal(changed);
      expect(specOrMetadataChanged(object, base)).to.equal(changed.length > 0);
    });

  it('counts no finalizers and an empty list as the same', () => {
    expect(finalizersChanged({ metadata: {} }, { metadata: { finalizers: [] } })).to.equal(false);
  });

  it('anyOf passes when one predicate does, and not when none does', () => {
    const spec = anyOf(generationChanged, deletionChanged);
    expect(spec(edited({ generation: 2 }), base)).to.equal(true);
    expect(spec(edited({ labels: {} }), base)).to.equal(false);
  });
});
