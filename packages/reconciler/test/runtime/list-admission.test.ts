import { expect } from 'chai';
import { NamespaceBound } from '../../src/runtime/namespace-bound.js';

interface Listed {
  metadata: { namespace: string; name: string; uid: string; creationTimestamp: string; parked?: true };
}
const object = (namespace: string, name: string, created: string): Listed => ({
  metadata: { namespace, name, uid: `uid-${name}`, creationTimestamp: created },
});
const stub = (listed: Listed): Listed => ({ metadata: { ...listed.metadata, parked: true } });

describe('NamespaceBound: a list admitted as a whole', () => {
  it('serves the oldest of each namespace, whatever order the list comes in, and parks the rest', () => {
    const bound = new NamespaceBound(2);
    const list = bound.startList(stub);
    for (const o of [
      object('a', 'young', '2026-01-01T00:00:09Z'),
      object('a', 'old', '2026-01-01T00:00:01Z'),
      object('b', 'only', '2026-01-01T00:00:05Z'),
      object('a', 'middle', '2026-01-01T00:00:05Z'),
    ])
      list.add(o);
    const kept = list.finish();
    expect(kept.filter((o) => !('parked' in o.metadata)).map(({ metadata }) => metadata.name)).to.have.members([
      'old',
      'middle',
      'only',
    ]);
    expect(kept.filter((o) => 'parked' in o.metadata).map(({ metadata }) => metadata.name)).to.deep.equal(['young']);
    expect(bound.count('a')).to.deep.equal({ served: 2, parked: 1 });
  });

  it('keeps the served ones served when a list finds older objects (a relist after a restart of the watch)', () => {
    const bound = new NamespaceBound(1);
    expect(bound.admit(object('a', 'served', '2026-01-01T00:00:09Z'))).to.equal(true);
    const list = bound.startList(stub);
    list.add(object('a', 'older', '2026-01-01T00:00:01Z'));
    list.add(object('a', 'served', '2026-01-01T00:00:09Z'));
    const parked = list.finish().filter((o) => 'parked' in o.metadata);
    expect(parked.map(({ metadata }) => metadata.name)).to.deep.equal(['older']);
  });

  it('tells the parked counts, and that a namespace has none parked any more', () => {
    const counts: [string, number][] = [];
    const bound = new NamespaceBound(1, (namespace, parked) => counts.push([namespace, parked]));
    bound.admit(object('a', 'one', '2026-01-01T00:00:01Z'));
    bound.admit(object('a', 'two', '2026-01-01T00:00:02Z'));
    const list = bound.startList(stub);
    list.add(object('a', 'one', '2026-01-01T00:00:01Z'));
    list.finish();
    expect(counts).to.deep.equal([
      ['a', 1],
      ['a', 0],
    ]);
  });
});
