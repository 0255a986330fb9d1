import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../helpers/emulator.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

describe('Namespace label kubernetes.io/metadata.name', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster();
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  after(() => cluster.stop());

  it('is on the namespaces that exist from the start', async () => {
    const list = await core.listNamespace();
    for (const namespace of list.items) {
      expect(namespace.metadata?.labels?.[NAME_LABEL]).to.equal(namespace.metadata?.name);
    }
    expect(list.items).to.have.length.greaterThan(0);
  });

  it('is set on create, next to the labels given, and selects the namespace by name', async () => {
    const created = await core.createNamespace({ body: { metadata: { name: 'tenant-a', labels: { tier: 'gold' } } } });
    expect(created.metadata?.labels).to.deep.equal({ tier: 'gold', [NAME_LABEL]: 'tenant-a' });
    const selected = await core.listNamespace({ labelSelector: `${NAME_LABEL} in (tenant-a, nope)` });
    expect(selected.items.map((item) => item.metadata?.name)).to.deep.equal(['tenant-a']);
  });

  it('cannot be removed or changed by a patch or an update', async () => {
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const removed = await core.patchNamespace(
      { name: 'tenant-a', body: { metadata: { labels: { [NAME_LABEL]: null, tier: null } } } },
      merge,
    );
    expect(removed.metadata?.labels).to.deep.equal({ [NAME_LABEL]: 'tenant-a' });
    const current = await core.readNamespace({ name: 'tenant-a' });
    const resourceVersion = current.metadata?.resourceVersion;
    const replaced = await core.replaceNamespace({
      name: 'tenant-a',
      body: { metadata: { name: 'tenant-a', resourceVersion, labels: { [NAME_LABEL]: 'other' } }, spec: current.spec },
    });
    expect(replaced.metadata?.labels).to.deep.equal({ [NAME_LABEL]: 'tenant-a' });
    // Nothing visible changed, so neither did the resourceVersion.
    expect(replaced.metadata?.resourceVersion).to.equal(resourceVersion);
  });
});
