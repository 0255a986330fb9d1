import type { AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import { STATIC_TENANT_A, condition, eventually, startPlatform, teamAProd, type Platform } from './harness.js';

const TAG_WRITES = ['tag:TagResources', 'tag:UntagResources', 'ec2:CreateTags', 'ec2:DeleteTags'];
const INSTANCE = 'arn:aws:ec2:us-west-2:222222222222:instance/i-0000000000000000b';

describe('spec.tagging.dryRun (the controller, in-process, against both emulators)', function () {
  this.timeout(60_000);
  let platform: Platform;
  const writes = () =>
    TAG_WRITES.reduce((sum, action) => sum + (platform.aws.calls.summary().byAction[action] ?? 0), 0);
  const setDryRun = (dryRun: boolean) => platform.patchCluster('team-a', 'prod', { tagging: { dryRun } });
  /** The cluster once the controller has seen its current generation. */
  const current = () =>
    eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(found.status?.observedGeneration).to.equal(found.metadata.generation);
      return found;
    });

  before(async () => {
    platform = await startPlatform([
      ...STATIC_TENANT_A,
      teamAProd({ additionalTags: { team: 'a', env: 'prod' }, tagging: { dryRun: true } }),
    ]);
  });
  after(() => platform.stop());

  it('plans without writing: TagsInSync and Ready False DryRun, the plan summed up in status', async () => {
    const found = await eventually(async () => {
      const cluster = await platform.cluster('team-a', 'prod');
      expect(condition(cluster, 'TagsInSync')?.reason).to.equal('DryRun');
      return cluster;
    });
    expect(condition(found, 'TagsInSync')?.status).to.equal('False');
    expect(condition(found, 'TagsInSync')?.message).to.equal(
      'Dry run (spec.tagging.dryRun): nothing was written. 1 of 1 resource(s) would change: 2 tag(s) to add, 0 to ' +
        'update, 0 to remove. status.tagging.plan lists the first changes, `keymaster plan` all of them; set ' +
        'spec.tagging.dryRun to false to apply them',
    );
    expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'DryRun' });
    expect(found.status?.tagging?.plan).to.deep.equal({
      resourcesToChange: 1,
      resourcesOverLimit: 0,
      resourcesSkipped: 0,
      tagsToAdd: 2,
      tagsToUpdate: 0,
      tagsToRemove: 0,
      tagsWithheld: 0,
      changes: [
        {
          resource: INSTANCE,
          key: 'env',
          action: 'Add',
          to: 'prod',
          layer: 'Cluster',
          object: 'AWSCluster team-a/prod',
        },
        { resource: INSTANCE, key: 'team', action: 'Add', to: 'a', layer: 'Cluster', object: 'AWSCluster team-a/prod' },
      ],
      changesNotShown: 0,
    });
    expect(found.status?.tagging).to.deep.include({ resourcesDiscovered: 1, resourcesDrifted: 1, resourcesInSync: 0 });
    expect(writes(), "AWS's call log").to.equal(0);
    expect(platform.aws.calls.summary().byAction['tag:GetResources']).to.be.greaterThan(0);
    expect(platform.aws.world.listResources().find(({ arn }) => arn === INSTANCE)?.tags).to.not.have.property('team');
  });

  it('applies the plan once dryRun is turned off, and drops the plan from status', async () => {
    await setDryRun(false);
    const applied = await eventually(async () => {
      const found = await current();
      expect(condition(found, 'Ready')?.status).to.equal('True');
      return found;
    });
    expect(applied.status?.tagging).to.not.have.property('plan');
    expect(platform.aws.world.listResources().find(({ arn }) => arn === INSTANCE)?.tags).to.include({
      team: 'a',
      env: 'prod',
    });
  });

  it('says the tags are in sync in a dry run that finds nothing to change: Ready True', async () => {
    const before = writes();
    await setDryRun(true);
    const found: AWSCluster = await eventually(async () => {
      const cluster = await current();
      expect(condition(cluster, 'TagsInSync')?.reason).to.equal('DryRun');
      return cluster;
    });
    expect(condition(found, 'TagsInSync')).to.include({
      status: 'True',
      message: 'Dry run (spec.tagging.dryRun): nothing was written, and all 1 resource(s) carry the effective tags',
    });
    expect(condition(found, 'Ready')?.status).to.equal('True');
    expect(found.status?.tagging?.plan).to.deep.include({ resourcesToChange: 0, changes: [], changesNotShown: 0 });
    expect(writes()).to.equal(before);
  });
});
