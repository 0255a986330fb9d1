import { expect } from 'chai';
import { knownBytes } from '@keymaster/tagging';
import { KnownResources } from '../../src/awscluster/known-resources.js';

const CLUSTER = 'team-a/prod';
const FOUND = {
  resources: { 'arn:aws:ec2:us-east-1:111111111111:instance/i-1': { team: 'a' } },
  regions: { 'arn:aws:ec2:us-east-1:111111111111:instance/i-1': 'us-east-1' },
};
const LAST = { discovery: 'cluster@1 account principal credentials', layers: 'policy@1' };

describe('KnownResources: which tag work plans from the known set', () => {
  const cases: { title: string; prepare: (known: KnownResources) => void; inputs: typeof LAST; plans: boolean }[] = [
    {
      title: 'a tag policy or identity edit (only the layers changed): plans from it',
      prepare: (known) => known.record(CLUSTER, LAST, FOUND),
      inputs: { ...LAST, layers: 'policy@2' },
      plans: true,
    },
    {
      title: 'a resync, or a signal that resources changed (the same inputs): discovers',
      prepare: (known) => known.record(CLUSTER, LAST, FOUND),
      inputs: LAST,
      plans: false,
    },
    {
      title: "the cluster's spec, account, principal or credential set changed: discovers",
      prepare: (known) => known.record(CLUSTER, LAST, FOUND),
      inputs: { discovery: 'cluster@2 account principal credentials', layers: 'policy@2' },
      plans: false,
    },
    {
      title: 'a new cluster (nothing recorded): discovers',
      prepare: () => {},
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
    {
      title:
        'after a work that was not synced (an error, a failure, a verify mismatch: taken, not recorded): discovers',
      prepare: (known) => {
        known.record(CLUSTER, LAST, FOUND);
        known.take(CLUSTER, { ...LAST, layers: 'policy@2' });
      },
      inputs: { ...LAST, layers: 'policy@3' },
      plans: false,
    },
    {
      title: 'a cluster forgotten (deleted): discovers',
      prepare: (known) => {
        known.record(CLUSTER, LAST, FOUND);
        known.forget(CLUSTER);
      },
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
    {
      title: "another cluster's known set: discovers",
      prepare: (known) => known.record('team-b/prod', LAST, FOUND),
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
  ];
  for (const { title, prepare, inputs, plans } of cases)
    it(title, () => {
      const known = new KnownResources();
      prepare(known);
      expect(known.take(CLUSTER, inputs)).to.equal(plans ? FOUND : undefined);
    });
});

describe('KnownResources: bounded in bytes, whatever a tenant’s accounts hold', () => {
  const found = (count: number) => {
    const arns = Array.from({ length: count }, (_, index) => `arn:aws:ec2:us-east-1:111111111111:instance/i-${index}`);
    return {
      resources: Object.fromEntries(arns.map((arn) => [arn, { team: 'a' }])),
      regions: Object.fromEntries(arns.map((arn) => [arn, 'us-east-1'])),
    };
  };
  const EDIT = { ...LAST, layers: 'policy@2' };

  it('drops the sets used longest ago to keep a new one within the bound', () => {
    const one = knownBytes(found(10));
    const known = new KnownResources(2 * one);
    for (const cluster of ['a/one', 'a/two', 'a/three']) known.record(cluster, LAST, found(10));
    expect(known.bytes).to.equal(2 * one);
    expect(known.take('a/one', EDIT), 'the oldest, dropped').to.equal(undefined);
    expect(known.take('a/two', EDIT)).to.deep.equal(found(10));
    expect(known.take('a/three', EDIT)).to.deep.equal(found(10));
    expect(known.bytes, 'taken sets are no longer held').to.equal(0);
  });

  it('keeps no set larger than the bound, and leaves the others', () => {
    const known = new KnownResources(knownBytes(found(10)));
    known.record('a/small', LAST, found(10));
    known.record('b/huge', LAST, found(1000));
    expect(known.take('b/huge', EDIT)).to.equal(undefined);
    expect(known.take('a/small', EDIT)).to.deep.equal(found(10));
  });

  it('counts a cluster recorded again once', () => {
    const known = new KnownResources();
    known.record(CLUSTER, LAST, found(10));
    known.record(CLUSTER, LAST, found(10));
    expect(known.bytes).to.equal(knownBytes(found(10)));
    known.forget(CLUSTER);
    expect(known.bytes).to.equal(0);
  });
});
