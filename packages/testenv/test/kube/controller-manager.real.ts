import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startRealKube, type RealKube } from '../../src/index.js';
import { eventually, isAlive } from './helpers/processes.js';

function gone(read: Promise<unknown>): Promise<void> {
  return read.then(
    () => expect.fail('it still exists'),
    (error: unknown) => {
      if (!(error instanceof ApiException) || error.code !== 404) throw error;
    },
  );
}

describe('a real control plane with kube-controller-manager (controllerManager: true)', function () {
  let kube: RealKube;
  let core: CoreV1Api;

  before(async () => {
    kube = await startRealKube({ controllerManager: true, namespaces: ['doomed'] });
    const config = new KubeConfig();
    config.loadFromString(kube.kubeConfig());
    core = config.makeApiClient(CoreV1Api);
  });
  after(() => (kube as RealKube | undefined)?.stop()); // undefined when it could not start

  it('runs each controller under its own service account, as kubeadm does', async () => {
    const accounts = (await core.listNamespacedServiceAccount({ namespace: 'kube-system' })).items;
    expect(accounts.map(({ metadata }) => metadata?.name)).to.include.members([
      'generic-garbage-collector',
      'namespace-controller',
      'resourcequota-controller',
    ]);
  });

  it('empties and removes a deleted namespace', async () => {
    await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'inside' } } });
    await core.deleteNamespace({ name: 'doomed' });
    await eventually(() => gone(core.readNamespace({ name: 'doomed' })), 60_000);
  });

  it('deletes what an ownerReference ties to a deleted owner', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'default' });
    await eventually(() => gone(core.readNamespacedConfigMap({ name: 'owned', namespace: 'default' })), 60_000);
  });

  it("fills a ResourceQuota's status, and quota admission then refuses a create past it", async () => {
    await core.createNamespacedResourceQuota({
      namespace: 'default',
      body: { metadata: { name: 'maps' }, spec: { hard: { 'count/configmaps': '1' } } },
    });
    await eventually(async () => {
      const { status } = await core.readNamespacedResourceQuota({ name: 'maps', namespace: 'default' });
      expect(status?.used).to.have.property('count/configmaps');
    }, 60_000);
    const { status } = await core.readNamespacedResourceQuota({ name: 'maps', namespace: 'default' });
    const room = 1 - Number(status!.used!['count/configmaps']);
    for (let index = 0; index < room; index++)
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `fill-${index}` } } });
    const refused = await core
      .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'past' } } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).to.be.instanceOf(ApiException);
    expect((refused as ApiException<string>).body).to.include('exceeded quota: maps');
  });

  it('stops kube-controller-manager with the rest', async () => {
    const other = await startRealKube({ controllerManager: true });
    const pid = other.pids.kubeControllerManager!;
    expect(isAlive(pid)).to.equal(true);
    await other.stop();
    expect(isAlive(-pid)).to.equal(false);
  });
});
