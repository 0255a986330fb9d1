import { validateObject } from '@keymaster/api';
import { expect } from 'chai';
import { summarizePlan } from '../../src/index.js';
import { cluster, instanceArn, memoryOf, owned, planFor } from '../fixtures.js';

describe('summarizePlan', () => {
  it('counts resources by outcome and tags by change, and gives the next managedTags', () => {
    const full = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`other-${i}`, 'x']));
    const plan = planFor({
      global: [{ key: 'env', value: 'prod', overridePolicy: 'Deny' }],
      clusterTags: { env: 'dev', team: 'a' },
      managedTags: { team: 'old', legacy: 'x' },
      removalPolicy: 'Delete',
      memory: memoryOf({ [instanceArn('i-change')]: { Cluster: { legacy: 'x' } } }),
      resources: {
        [instanceArn('i-change')]: { ...owned(), team: 'old', legacy: 'x' },
        [instanceArn('i-sync')]: { ...owned(), env: 'prod', team: 'a' },
        [instanceArn('i-full')]: { ...owned(), ...full },
        [instanceArn('i-shared')]: owned('shared'),
      },
    });
    expect(summarizePlan(plan)).to.deep.equal({
      resourcesDiscovered: 4,
      resourcesInSync: 1,
      resourcesDrifted: 2,
      resourcesOverLimit: 1,
      resourcesSkipped: 1,
      tagsToAdd: 1,
      tagsToUpdate: 1,
      tagsToRemove: 1,
      tagsWithheld: 2,
      conflicts: 1,
      managedTags: { env: 'prod', team: 'a' },
    });
  });

  it("fits the AWSCluster's status.tagging, conflicts included", () => {
    const plan = planFor({
      global: [
        { key: 'env', value: 'prod', overridePolicy: 'Deny' },
        { key: 'team', value: 'platform' },
      ],
      clusterTags: { env: 'dev', team: 'a' },
      resources: { [instanceArn('i-1')]: owned() },
    });
    const { managedTags, resourcesDiscovered, resourcesInSync, resourcesDrifted } = summarizePlan(plan);
    const status = {
      tagging: { conflicts: plan.conflicts, managedTags, resourcesDiscovered, resourcesInSync, resourcesDrifted },
    };
    expect(plan.conflicts).to.have.length(2);
    expect(validateObject({ ...cluster({ env: 'dev', team: 'a' }), status })).to.deep.equal([]);
  });
});
