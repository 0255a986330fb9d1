import { GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  TENANT_A_KEYS_SECRET,
  condition,
  eventually,
  startPlatform,
  teamAProd,
  staticTenantA,
  type Platform,
} from './harness.js';

const INSTANCE = 'arn:aws:ec2:us-west-2:222222222222:instance/i-0000000000000000b';
const OWNED = { 'sigs.k8s.io/cluster-api-provider-aws/cluster/prod': 'owned' };
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('drift metric, lastSyncTime and error counts, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      TENANT_A_KEYS_SECRET,
      staticTenantA({ list: ['team-a'] }),
      teamAProd({ additionalTags: { team: 'a' } }),
    ]);
  });
  after(() => platform.stop());

  const gauge = async () =>
    (await platform.controller.metrics.driftedResources.get()).values.reduce((sum, { value }) => sum + value, 0);
  const metricSum = async (name: 'reconcileErrors' | 'reconcileTotal', result?: string) =>
    (await platform.controller.metrics.runtime[name].get()).values
      .filter(({ labels }) => result === undefined || (labels as Record<string, unknown>)['result'] === result)
      .reduce((sum, { value }) => sum + value, 0);

  it('corrects drift: lastSyncTime moves, keymaster_drifted_resources is the sum of status (0)', async () => {
    const synced = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(condition(found, 'Ready')?.status).to.equal('True');
      expect(found.status?.tagging?.lastSyncTime).to.be.a('string');
      return found;
    });
    const firstSync = synced.status!.tagging!.lastSyncTime!;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // lastSyncTime has one-second precision
    // Someone edits the tag on AWS: the next resync (2 s) sets it back.
    platform.aws.world.putResources({ arn: INSTANCE, tags: { ...OWNED, team: 'edited' } });
    const corrected: AWSCluster = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(found.status?.tagging?.lastSyncTime).to.not.equal(firstSync);
      return found;
    }, 20_000);
    expect(platform.aws.world.listResources().find(({ arn }) => arn === INSTANCE)?.tags['team']).to.equal('a');
    expect(corrected.status?.tagging?.resourcesDrifted).to.equal(0);
    expect(await gauge()).to.equal(corrected.status?.tagging?.resourcesDrifted);
  });

  it('drift pending in a dry run is counted as status says; a refused cluster counts none', async () => {
    await platform.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclusters',
        namespace: 'team-a',
        name: 'prod',
        body: { spec: { additionalTags: { team: 'b' }, tagging: { dryRun: true } } },
      },
      mergePatch,
    );
    await eventually(async () => {
      expect((await platform.cluster('team-a', 'prod')).status?.tagging?.resourcesDrifted).to.equal(1);
      expect(await gauge()).to.equal(1);
    });
    await platform.custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterstaticidentities',
        name: 'tenant-a',
        body: { spec: { allowedNamespaces: { list: ['team-b'] } } },
      },
      mergePatch,
    );
    await eventually(async () =>
      expect(condition(await platform.cluster('team-a', 'prod'), 'PrincipalUsageAllowed')?.status).to.equal('False'),
    );
    expect(await gauge()).to.equal(0);
    expect(await metricSum('reconcileErrors'), 'no reconcile of this run failed').to.equal(0);
    expect(await metricSum('reconcileTotal', 'error')).to.equal(0);
  });
});
