import { API_VERSION, GROUP, VERSION, type AWSCluster, type AWSCredentialsRequest } from '@keymaster/api';
import { expect } from 'chai';
import { CLUSTER_FINALIZER } from '../../src/awscluster/reconciler.js';
import { condition, eventually, startPlatform, type Platform } from './harness.js';

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const cluster = (ns: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace: ns, annotations: { 'tenant-note': 'n'.repeat(200_000) } },
  spec: { region: 'us-west-2' },
});
const request = (name: string, resources = ['*']) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name, namespace: 'team-a' },
  spec: {
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
    statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources }],
    secretRef: { name: `${name}-aws` },
  },
});
/** Resources no valid session policy could hold (AWS takes 2,048 characters): over 64 KiB of them. */
const TOO_MANY = Array.from({ length: 40 }, (_, index) => `arn:aws:s3:::${String(index).padEnd(2000, 'x')}`);

describe('objects past their namespace bound (--max-clusters-per-namespace, --max-credentials-requests-per-namespace)', function () {
  this.timeout(60_000);
  let platform: Platform;
  const ready = async (ns: string, name: string) => condition(await platform.cluster(ns, name), 'Ready');
  const parkedMetric = async () =>
    (await platform.controller.metrics.objectsParked.get()).values.map(({ labels, value }) => ({ ...labels, value }));

  before(async () => {
    platform = await startPlatform(
      [
        namespace('team-a'),
        namespace('team-b'),
        {
          apiVersion: API_VERSION,
          kind: 'AWSClusterControllerIdentity',
          metadata: { name: 'default' },
          spec: { allowedNamespaces: { list: ['team-a', 'team-b'] } },
        },
        cluster('team-b', 'other'),
      ],
      ['--max-clusters-per-namespace', '2', '--max-credentials-requests-per-namespace', '1'],
    );
    // The oldest two of team-a first: served in creation order.
    for (const name of ['one', 'two']) {
      await platform.objects.create(cluster('team-a', name));
      await eventually(async () => expect(await ready('team-a', name)).to.include({ status: 'True' }));
    }
  });
  after(() => platform.stop());

  it('parks the cluster past the bound: Ready False, no finalizer, nothing of it resolved', async () => {
    await platform.objects.create(cluster('team-a', 'three'));
    const parked = await eventually(async () => {
      const found = await platform.cluster('team-a', 'three');
      expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'NamespaceLimitReached' });
      return found;
    });
    expect(condition(parked, 'Ready')?.message).to.equal(
      'Namespace team-a holds more AWSClusters than the controller serves per namespace (2, ' +
        '--max-clusters-per-namespace): it serves the oldest and holds no work for this one. Delete AWSClusters ' +
        'of this namespace, or ask the platform team to raise --max-clusters-per-namespace.',
    );
    expect(parked.metadata.finalizers ?? []).to.not.include(CLUSTER_FINALIZER.name);
    expect(parked.status?.accountID).to.equal(undefined);
    // Another namespace is served as before.
    expect(await ready('team-b', 'other')).to.include({ status: 'True' });
    expect(await parkedMetric()).to.deep.equal([{ kind: 'AWSCluster', namespace: 'team-a', value: 1 }]);
  });

  it('serves the oldest parked cluster once a served one goes', async () => {
    await platform.custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awsclusters',
      namespace: 'team-a',
      name: 'one',
    });
    const served = await eventually(async () => {
      const found = await platform.cluster('team-a', 'three');
      expect(condition(found, 'Ready')).to.include({ status: 'True' });
      return found;
    });
    expect(served.metadata.finalizers).to.include(CLUSTER_FINALIZER.name);
    expect(served.status?.accountID).to.equal('111111111111');
    expect(await parkedMetric()).to.deep.equal([]);
  });

  it('keeps neither the labels nor the annotations a tenant fills of the clusters it serves', () => {
    const cached = platform.controller.keymaster.context.caches.clusters.get('three', 'team-a') as AWSCluster;
    expect(cached.metadata.annotations).to.equal(undefined);
    expect(cached.metadata.labels).to.equal(undefined);
  });

  it('refuses a request larger than any valid one without keeping its spec, and parks the one past the bound', async () => {
    await platform.objects.create(request('first', TOO_MANY));
    await eventually(() =>
      expect(platform.controller.keymaster.credentialRequests.requests.get('first', 'team-a')).to.not.equal(undefined),
    );
    await platform.objects.create(request('second'));
    const read = async (name: string) =>
      (await platform.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awscredentialsrequests',
        namespace: 'team-a',
        name,
      })) as AWSCredentialsRequest;
    const parked = await eventually(async () => {
      const found = await read('second');
      const ready = found.status?.conditions?.find(({ type }) => type === 'Ready');
      expect(ready).to.include({ status: 'False', reason: 'NamespaceLimitReached' });
      expect(ready?.message).to.include('--max-credentials-requests-per-namespace');
      return found;
    });
    expect(parked.metadata.finalizers ?? []).to.deep.equal([]);
    const served = await eventually(async () => {
      const found = await read('first');
      expect(found.status?.conditions?.find(({ type }) => type === 'Ready')).to.include({ reason: 'SpecTooLarge' });
      return found;
    });
    expect(served.metadata.finalizers).to.have.length(1);
    const cached = platform.controller.keymaster.credentialRequests.requests.get('first', 'team-a')!;
    expect(cached.spec.statements).to.equal(undefined);
  });
});
