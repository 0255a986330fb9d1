import { expect } from 'chai';
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
