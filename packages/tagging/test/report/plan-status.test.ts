import { LIMITS, validateObject } from '@keymaster/api';
import { expect } from 'chai';
import { planChanges } from '../../src/index.js';
import { planStatus } from '../../src/report/plan-status.js';
import { taggingStatus } from '../../src/report/status.js';
import { cluster, instanceArn, owned, planFor } from '../fixtures.js';

describe('planStatus (status.tagging.plan after a dry run)', () => {
  // 30 resources with 2 keys to add each: 60 changes.
  const resources = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [instanceArn(`i-${String(i).padStart(2, '0')}`), owned()]),
  );
  const plan = planFor({ clusterTags: { team: 'a', env: 'dev' }, resources });

  it('counts every change by kind and lists only the first ones, in ARN then key order', () => {
    const status = planStatus(plan);
    expect(status).to.deep.include({
      resourcesToChange: 30,
      resourcesOverLimit: 0,
      resourcesSkipped: 0,
      tagsToAdd: 60,
      tagsToUpdate: 0,
      tagsToRemove: 0,
      tagsWithheld: 0,
      changesNotShown: 60 - LIMITS.planChangesInStatus,
    });
    expect(status.changes).to.deep.equal(planChanges(plan).slice(0, LIMITS.planChangesInStatus));
    expect(status.changes!.map(({ resource, key }) => `${resource.slice(-4)} ${key}`).slice(0, 3)).to.deep.equal([
      'i-00 env',
      'i-00 team',
      'i-01 env',
    ]);
  });

  it('is in status after a dry run only, and fits the AWSCluster schema', () => {
    const dry = taggingStatus(plan, { failed: [], gone: [], dryRun: true });
    expect(dry.plan).to.deep.equal(planStatus(plan));
    expect(taggingStatus(plan, { failed: [], gone: [], dryRun: false })).to.not.have.property('plan');
    expect(validateObject({ ...cluster({ team: 'a', env: 'dev' }), status: { tagging: dry } })).to.deep.equal([]);
  });

  it('is empty of changes when nothing is to change', () => {
    const quiet = planFor({
      clusterTags: { team: 'a' },
      resources: { [instanceArn('i-1')]: { ...owned(), team: 'a' } },
    });
    expect(planStatus(quiet)).to.deep.include({ resourcesToChange: 0, tagsToAdd: 0, changes: [], changesNotShown: 0 });
  });
});
