import { expect } from 'chai';
import { planChanges } from '../../src/index.js';
import { CLUSTER_OBJECT, POLICY, instanceArn, memoryOf, owned, planFor } from '../fixtures.js';

describe('planChanges', () => {
  const full = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`other-${i}`, 'x']));
  const plan = planFor({
    global: [
      { key: 'env', value: 'prod', overridePolicy: 'Deny' },
      { key: 'cost-center', value: '1000' },
    ],
    clusterTags: { env: 'dev', team: 'a' },
    managedTags: { team: 'old', legacy: 'x', owner: 'alice' },
    removalPolicy: 'Delete',
    memory: memoryOf({ [instanceArn('i-2')]: { Cluster: { team: 'old', legacy: 'x', owner: 'alice' } } }),
    resources: {
      [instanceArn('i-2')]: { ...owned(), env: 'prod', team: 'old', 'cost-center': '1000', legacy: 'x', owner: 'bob' },
      [instanceArn('i-1')]: { ...owned(), env: 'prod', team: 'a', 'cost-center': '1000' },
      [instanceArn('i-3')]: { ...owned(), ...full },
      [instanceArn('i-4')]: owned('shared'),
    },
  });

  it('lists every change, one key of one resource per row, in ARN then key order, with the winning layer', () => {
    expect(planChanges(plan)).to.deep.equal([
      {
        resource: instanceArn('i-2'),
        key: 'legacy',
        action: 'Remove',
        from: 'x',
        reason: 'Dropped',
      },
      { resource: instanceArn('i-2'), key: 'owner', action: 'Keep', from: 'bob', reason: 'ChangedSince' },
      {
        resource: instanceArn('i-2'),
        key: 'team',
        action: 'Update',
        from: 'old',
        to: 'a',
        reason: 'PolicyChanged',
        layer: 'Cluster',
        object: CLUSTER_OBJECT,
      },
      ...['cost-center', 'env', 'team'].map((key) => ({
        resource: instanceArn('i-3'),
        key,
        action: 'Withhold',
        to: { 'cost-center': '1000', env: 'prod', team: 'a' }[key],
        reason: 'TagLimit',
        ...(key === 'team' ? { layer: 'Cluster', object: CLUSTER_OBJECT } : { layer: 'Global', object: POLICY }),
      })),
    ]);
  });

  it('has no row for a resource in sync or skipped, and rows for the adds of a new resource', () => {
    const fresh = planFor({ clusterTags: { team: 'a' }, resources: { [instanceArn('i-9')]: owned() } });
    expect(planChanges(fresh)).to.deep.equal([
      {
        resource: instanceArn('i-9'),
        key: 'team',
        action: 'Add',
        to: 'a',
        layer: 'Cluster',
        object: CLUSTER_OBJECT,
      },
    ]);
    const rows = planChanges(plan);
    expect(rows.map(({ resource }) => resource)).to.not.include.members([instanceArn('i-1'), instanceArn('i-4')]);
  });
});
