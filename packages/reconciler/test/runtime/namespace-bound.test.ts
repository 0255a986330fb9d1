import { expect } from 'chai';
import { byAge, NamespaceBound } from '../../src/runtime/namespace-bound.js';

const object = (namespace: string, name: string, created: string) => ({
  metadata: { namespace, name, uid: `uid-${name}`, creationTimestamp: created },
});

describe('NamespaceBound', () => {
  it('serves a namespace up to its limit and parks the rest, each namespace on its own', () => {
    const bound = new NamespaceBound(2);
    expect(bound.admit(object('a', 'one', '2026-01-01T00:00:01Z'))).to.equal(true);
    expect(bound.admit(object('a', 'two', '2026-01-01T00:00:02Z'))).to.equal(true);
    expect(bound.admit(object('a', 'three', '2026-01-01T00:00:03Z'))).to.equal(false);
    expect(bound.admit(object('b', 'one', '2026-01-01T00:00:04Z'))).to.equal(true);
    expect(bound.count('a')).to.deep.equal({ served: 2, parked: 1 });
    expect(bound.count('b')).to.deep.equal({ served: 1, parked: 0 });
    // A served object changed is still served; a parked one still parked.
    expect(bound.admit(object('a', 'one', '2026-01-01T00:00:01Z'))).to.equal(true);
    expect(bound.isParked(object('a', 'three', '2026-01-01T00:00:03Z'))).to.equal(true);
  });

  it('gives a freed place to the oldest parked object', () => {
    const bound = new NamespaceBound(1);
    bound.admit(object('a', 'served', '2026-01-01T00:00:01Z'));
    bound.admit(object('a', 'young', '2026-01-01T00:00:09Z'));
    bound.admit(object('a', 'old', '2026-01-01T00:00:05Z'));
    const next = bound.remove(object('a', 'served', '2026-01-01T00:00:01Z'));
    expect(next?.metadata?.name).to.equal('old');
    expect(bound.isParked(object('a', 'old', '2026-01-01T00:00:05Z'))).to.equal(false);
    expect(bound.count('a')).to.deep.equal({ served: 1, parked: 1 });
  });

  it('frees nothing when a parked object goes', () => {
    const bound = new NamespaceBound(1);
    bound.admit(object('a', 'served', '2026-01-01T00:00:01Z'));
    bound.admit(object('a', 'parked', '2026-01-01T00:00:02Z'));
    expect(bound.remove(object('a', 'parked', '2026-01-01T00:00:02Z'))).to.equal(undefined);
    expect(bound.count('a')).to.deep.equal({ served: 1, parked: 0 });
  });

  it('orders by creation time, then UID', () => {
    const sorted = [
      object('a', 'c', '2026-01-01T00:00:02Z'),
      { metadata: { ...object('a', 'b', '2026-01-01T00:00:01Z').metadata, uid: 'uid-z' } },
      object('a', 'a', '2026-01-01T00:00:01Z'),
    ].sort(byAge);
    expect(sorted.map(({ metadata }) => metadata.name)).to.deep.equal(['a', 'b', 'c']);
  });
});
