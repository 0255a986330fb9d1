import { API_VERSION, type AWSTagPolicy } from '@keymaster/api';
import { PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { realClock } from '../../src/runtime/clock.js';
import { STATIC_TENANT_A, condition, eventually, startPlatform, teamAProd, type Platform } from './harness.js';

const INSTANCE = 'arn:aws:ec2:us-west-2:222222222222:instance/i-0000000000000000b';
const policy = (costCenter: string): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags: [{ key: 'cost-center', value: costCenter }] },
});

describe('known resources (the controller, in-process, against both emulators)', function () {
  this.timeout(60_000);
  let platform: Platform;
  const discoveries = () => platform.aws.calls.summary().byAction['tag:GetResources'] ?? 0;
  const tagsOnAws = () => platform.aws.world.listResources().find(({ arn }) => arn === INSTANCE)?.tags ?? {};

  before(async () => {
    platform = await startPlatform([...STATIC_TENANT_A, teamAProd({ additionalTags: { team: 'a' } })]);
  });
  after(() => platform.stop());

  it("a tag policy edit and the cluster's own tags edited reach the resources with no GetResources; its regions edited, it discovers", async () => {
    await eventually(async () => {
      expect(condition(await platform.cluster('team-a', 'prod'), 'TagsInSync')?.status).to.equal('True');
      expect(tagsOnAws()).to.include({ team: 'a' });
    });
    const before = discoveries();
    expect(before).to.be.greaterThan(0);

    await platform.objects.create(policy('1000') as unknown as KubernetesObject);
    await eventually(() => expect(tagsOnAws()).to.include({ 'cost-center': '1000', team: 'a' }));
    await platform.objects.patch(
      policy('2000') as unknown as KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    await eventually(() => expect(tagsOnAws()).to.include({ 'cost-center': '2000', team: 'a' }));
    // EC2 reads its writes back with DescribeTags: any GetResources would be a discovery.
    expect(discoveries()).to.equal(before);

    await platform.patchCluster('team-a', 'prod', { additionalTags: { team: 'b' } });
    await eventually(() => expect(tagsOnAws()).to.include({ 'cost-center': '2000', team: 'b' }));
    expect(discoveries()).to.equal(before);

    // Where the cluster's resources are is not known: a region added is looked at.
    await platform.patchCluster('team-a', 'prod', { tagging: { extraRegions: ['eu-west-1'] } });
    await eventually(() => expect(discoveries()).to.be.greaterThan(before));
  });

  it('a cluster whose layers are edited more often than it resyncs still discovers once a sync period', async () => {
    // The controller's time jumps where the test says; its timers stay real, and with a sync period of
    // an hour no resync comes: every reconcile below is an edit's.
    let offsetMs = 0;
    const HOUR = 3_600_000;
    const edited = await startPlatform([...STATIC_TENANT_A, teamAProd({})], ['--sync-period', '1h'], {
      clock: { ...realClock, now: () => Date.now() + offsetMs },
    });
    try {
      const gets = () => edited.aws.calls.summary().byAction['tag:GetResources'] ?? 0;
      const tags = () => edited.aws.world.listResources().find(({ arn }) => arn === INSTANCE)?.tags ?? {};
      const edit = async (team: string) => {
        await edited.patchCluster('team-a', 'prod', { additionalTags: { team } });
        await eventually(() => expect(tags()).to.include({ team }));
      };
      await edit('a');
      const discovered = gets();
      offsetMs = 0.7 * HOUR;
      await edit('b');
      expect(gets(), 'within the period: from the known set').to.equal(discovered);
      // 1.2 h after the discovery, 0.5 h after the last edit: the known set's age is its discovery's.
      offsetMs = 1.2 * HOUR;
      await edit('c');
      expect(gets(), 'a period after the discovery: discovers').to.be.greaterThan(discovered);
    } finally {
      await edited.stop();
    }
  });
});
