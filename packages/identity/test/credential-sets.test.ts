import { expect } from 'chai';
import { CredentialSets } from '../src/credential-sets.js';

interface FakeSet {
  key: string;
  source?: FakeSet | undefined;
}

const chain = (...keys: string[]): FakeSet =>
  keys.reduceRight<FakeSet | undefined>((source, key) => ({ key, source }), undefined)!;

/** A store keeping 3 unpinned sets per namespace, recording what it evicted. */
function store() {
  const evicted: string[] = [];
  const crowded: string[] = [];
  const sets = new CredentialSets<FakeSet>({
    maxUnpinnedPerNamespace: 3,
    evicted: (set) => evicted.push(set.key),
    evictedForRoom: (namespace) => crowded.push(namespace),
  });
  /** A set and its sources, as a resolve of `namespace` makes them (root first). */
  const resolve = (namespace: string, top: FakeSet) => {
    const links: FakeSet[] = [];
    for (let link: FakeSet | undefined = top; link; link = link.source) links.unshift(link);
    for (const link of links) if (!sets.get(link.key, namespace)) sets.add(link, namespace);
    return top;
  };
  return { sets, evicted, crowded, resolve };
}

describe('CredentialSets: kept by who pins them, each namespace bounded apart', () => {
  it("never evicts another namespace's sets, pinned or not, however many sets one namespace makes", () => {
    const { sets, evicted, resolve } = store();
    sets.pin('AWSCluster/tenant-b/prod', 'tenant-b', resolve('tenant-b', chain('b-role', 'hub', 'controller')));
    resolve('tenant-b', chain('b-old'));
    for (let i = 0; i < 1_100; i += 1) resolve('hostile', chain(`hostile-${i}`, 'controller'));
    expect(evicted.filter((key) => !key.startsWith('hostile-'))).to.deep.equal([]);
    for (const key of ['b-role', 'hub', 'controller', 'b-old'])
      expect(sets.get(key, 'tenant-b'), key).not.to.equal(undefined);
    expect(sets.countsOf('hostile')).to.deep.equal({ pinned: 0, unpinned: 3 });
    expect(sets.countsOf('tenant-b')).to.deep.equal({ pinned: 1, unpinned: 1 });
  });

  it("evicts a namespace's own least recently used unpinned sets, and never its pinned ones", () => {
    const { sets, evicted, resolve } = store();
    sets.pin('AWSCredentialsRequest/ns/kept', 'ns', resolve('ns', chain('kept')));
    for (const key of ['a', 'b', 'c']) resolve('ns', chain(key));
    sets.get('a', 'ns'); // used again: b is now the least recently used
    resolve('ns', chain('d'));
    expect(evicted).to.deep.equal(['b']);
    for (let i = 0; i < 10; i += 1) resolve('ns', chain(`more-${i}`));
    expect(evicted).not.to.include('kept');
    expect(sets.countsOf('ns')).to.deep.equal({ pinned: 1, unpinned: 3 });
  });

  it('tells each eviction for room, by namespace, and no drop of a changed set', () => {
    const { sets, crowded, resolve } = store();
    for (const key of ['a', 'b', 'c', 'd', 'e']) resolve('ns', chain(key));
    for (const key of ['x', 'y']) resolve('other', chain(key));
    sets.deleteWhere((set) => set.key === 'x');
    expect(crowded).to.deep.equal(['ns', 'ns']);
  });

  it('keeps a shared set once, pinned while any holder of any namespace uses it', () => {
    const { sets, evicted, resolve } = store();
    const hub = resolve('tenant-a', chain('a-role', 'hub'));
    sets.pin('AWSCluster/tenant-a/x', 'tenant-a', hub);
    sets.pin('AWSCluster/tenant-b/y', 'tenant-b', resolve('tenant-b', chain('b-role', 'hub')));
    expect(sets.size).to.equal(3);
    sets.release('AWSCluster/tenant-a/x');
    for (let i = 0; i < 10; i += 1) resolve('tenant-a', chain(`a-${i}`));
    expect(evicted).to.include('a-role');
    expect(evicted, "tenant-b's chain still pins the hub").not.to.include('hub');
  });

  it('releases what a holder used before when it pins another set (a request edited)', () => {
    const { sets, evicted, resolve } = store();
    sets.pin('AWSCredentialsRequest/ns/r', 'ns', resolve('ns', chain('policy-1', 'role')));
    sets.pin('AWSCredentialsRequest/ns/r', 'ns', resolve('ns', chain('policy-2', 'role')));
    expect(sets.countsOf('ns')).to.deep.equal({ pinned: 1, unpinned: 1 });
    for (let i = 0; i < 3; i += 1) resolve('ns', chain(`other-${i}`));
    expect(evicted).to.deep.equal(['policy-1']);
    expect(sets.get('role', 'ns'), 'the source the new set is made from').not.to.equal(undefined);
  });

  it('keeps a released chain unpinned for the namespace of its holder, the set before its sources', () => {
    const { sets, evicted, resolve } = store();
    sets.pin('AWSCluster/ns/gone', 'ns', resolve('ns', chain('top', 'middle', 'root')));
    sets.release('AWSCluster/ns/gone');
    expect(sets.countsOf('ns')).to.deep.equal({ pinned: 0, unpinned: 3 });
    resolve('ns', chain('new'));
    expect(evicted, 'the set goes before the sources it is made from').to.deep.equal(['top']);
  });

  it('takes back a set evicted while the resolve that made it was in flight, with its holder', () => {
    const { sets, resolve } = store();
    const inFlight = resolve('ns', chain('in-flight', 'source'));
    for (let i = 0; i < 5; i += 1) resolve('ns', chain(`churn-${i}`));
    expect(sets.get('in-flight', 'ns')).to.equal(undefined);
    sets.pin('AWSCredentialsRequest/ns/r', 'ns', inFlight);
    expect(sets.get('in-flight', 'ns')).to.equal(inFlight);
    expect(sets.get('source', 'ns')).to.equal(inFlight.source);
  });

  it('drops sets whose identity changed even while pinned, and counts them no more once their holder moves on', () => {
    const { sets, evicted, resolve } = store();
    sets.pin('AWSCluster/ns/c', 'ns', resolve('ns', chain('old-role', 'controller')));
    sets.deleteWhere((set) => set.key === 'old-role');
    expect(evicted).to.deep.equal(['old-role']);
    expect(sets.get('old-role', 'ns')).to.equal(undefined);
    sets.pin('AWSCluster/ns/c', 'ns', resolve('ns', chain('new-role', 'controller')));
    expect(sets.countsOf('ns')).to.deep.equal({ pinned: 1, unpinned: 0 });
  });

  it('tells what changed, per namespace', () => {
    const changed: string[] = [];
    const sets = new CredentialSets<FakeSet>({
      maxUnpinnedPerNamespace: 3,
      evicted: () => undefined,
      changed: (namespace) => changed.push(namespace),
    });
    sets.add(chain('a'), 'tenant-a');
    sets.pin('AWSCluster/tenant-b/x', 'tenant-b', sets.get('a', 'tenant-b')!);
    expect(new Set(changed)).to.deep.equal(new Set(['tenant-a', 'tenant-b']));
    expect(sets.countsOf('tenant-a')).to.deep.equal({ pinned: 0, unpinned: 0 });
  });
});
