import { API_VERSION, validateObject, type AWSClusterLedger } from '@keymaster/api';
import { expect } from 'chai';
import { ClusterMemory, fingerprint, resourceDigest, ResourceMemory } from '../src/index.js';
import { legacyMemory } from '../src/legacy.js';
import { instanceArn, legacyRemembered, memoryOf } from './fixtures.js';

describe('fingerprint', () => {
  // Ledgers hold these: a change would make Keymaster forget what it wrote.
  it('gives the fingerprints ledgers hold, asked once or many times', () => {
    for (let round = 0; round < 2; round++) {
      expect(fingerprint('cost-center', '1000')).to.equal('I6-DwcGWZgVG');
      expect(fingerprint('team', 'analytics')).to.equal('eoFfumndz2wS');
      expect(fingerprint('ключ', 'значение')).to.equal('e6KPhe05O4Y-');
    }
    expect(resourceDigest(instanceArn('i-1'))).to.equal('c+OsI1zpdau9WaLq');
  });

  it('gives the same fingerprints once its memo of 10,000 has started again', () => {
    const first = Array.from({ length: 10 }, (_, i) => fingerprint('tenant', `t-${i}`));
    for (let i = 0; i < 10_001; i++) fingerprint(`key-${i % 7}`, `value-${i}`);
    expect(Array.from({ length: 10 }, (_, i) => fingerprint('tenant', `t-${i}`))).to.deep.equal(first);
    expect(fingerprint('cost-center', '1000')).to.equal('I6-DwcGWZgVG');
  });

  it('starts with the 4 characters the memory tags of releases up to 0.2.0 held', () => {
    // Those releases' own expectations: I6-D, eoFf, e6KP.
    expect(['I6-D', 'eoFf', 'e6KP']).to.deep.equal(
      [fingerprint('cost-center', '1000'), fingerprint('team', 'analytics'), fingerprint('ключ', 'значение')].map(
        (print) => print.slice(0, 4),
      ),
    );
  });

  it('tells a key from a value: the separator keeps "a" + "bc" apart from "ab" + "c"', () => {
    expect(fingerprint('a', 'bc')).to.not.equal(fingerprint('ab', 'c'));
  });
});

describe('ClusterMemory', () => {
  const arns = Array.from({ length: 20 }, (_, i) => instanceArn(`i-${String(i).padStart(17, '0')}`));
  const keys = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key-${i}`, `value-${i}`]));

  it('groups resources of the same memory, and reads back what it wrote', () => {
    const memory = memoryOf({
      [arns[0]!]: { Cluster: { team: 'a' } },
      [arns[1]!]: { Cluster: { team: 'a' } },
      [arns[2]!]: { Global: { cost: '1' }, Cluster: { team: 'a' } },
    });
    const groups = memory.toLedger();
    expect(groups).to.have.length(2);
    expect(groups.map(({ resources }) => resources.length).sort()).to.deep.equal([1, 2]);
    const read = ClusterMemory.fromLedger(groups);
    expect(read.of(arns[2]!).writer('cost', '1')).to.equal('Global');
    expect(read.of(arns[1]!).writer('team', 'a')).to.equal('Cluster');
    expect(read.of(arns[3]!).empty).to.equal(true);
    expect(read.toLedger()).to.deep.equal(groups);
  });

  it('costs well under 2 KB for a cluster of 20 resources and 10 keys, and passes the CRD schema', () => {
    const memory = memoryOf(Object.fromEntries(arns.map((arn) => [arn, { Global: keys }])));
    const ledger: AWSClusterLedger = {
      apiVersion: API_VERSION,
      kind: 'AWSClusterLedger',
      metadata: { name: 'analytics-dev', namespace: 'tenant-b' },
      spec: {
        claims: [
          {
            accountID: '111122223333',
            region: 'eu-west-1',
            clusterName: 'analytics-dev',
            since: '2026-01-01T00:00:00Z',
          },
        ],
        memory: memory.toLedger(),
        legacyTagsConverted: '2026-01-01T00:00:00Z',
      },
    };
    expect(validateObject(ledger)).to.deep.equal([]);
    expect(JSON.stringify(ledger.spec).length).to.be.below(1024);
  });

  it('forgets a resource whose memory empties, and keeps only the resources asked', () => {
    const memory = memoryOf({ [arns[0]!]: { Cluster: { team: 'a' } }, [arns[1]!]: { Cluster: { team: 'a' } } });
    const forgotten = memory.of(arns[0]!);
    forgotten.forget('team', 'a');
    memory.set(arns[0]!, forgotten);
    expect(memory.size).to.equal(1);
    memory.keepOnly([arns[2]!]);
    expect(memory.toLedger()).to.deep.equal([]);
  });

  it('copies: what the copy records or forgets leaves the original as it was, and the other way round', () => {
    const original = memoryOf({ [arns[0]!]: { Cluster: { team: 'a' } }, [arns[1]!]: { Cluster: { team: 'a' } } });
    const before = original.toLedger();
    const copy = original.copy();
    const changed = copy.of(arns[0]!);
    changed.write('Global', 'cost', '1');
    copy.set(arns[0]!, changed);
    copy.keepOnly([arns[0]!]);
    expect(original.toLedger()).to.deep.equal(before);
    original.set(arns[1]!, new ResourceMemory());
    expect(copy.of(arns[0]!).writer('cost', '1')).to.equal('Global');
    expect(copy.toLedger()).to.deep.equal([{ resources: [resourceDigest(arns[0]!)], ...changed.prints() }]);
  });

  it('gives ledger lists of their own: changing what toLedger returned changes nothing remembered', () => {
    const memory = memoryOf({ [arns[0]!]: { Cluster: { team: 'a' } } });
    memory.toLedger()[0]!.cluster!.length = 0;
    expect(memory.of(arns[0]!).writer('team', 'a')).to.equal('Cluster');
  });
});

describe('legacyMemory', () => {
  it("remembers, in full, the live key=value pairs whose 4-character print a layer's legacy tag holds", () => {
    const live = {
      team: 'a',
      cost: '2',
      ...legacyRemembered('Cluster', { team: 'a', old: 'gone' }),
      ...legacyRemembered('Global', { cost: '1' }),
    };
    expect(legacyMemory(live).prints()).to.deep.equal(
      new ResourceMemory({ cluster: [fingerprint('team', 'a')] }).prints(),
    );
  });
});
