import { fileURLToPath } from 'node:url';
import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { API_VERSION } from '@keymaster/api';
import { expect } from 'chai';
import { kubeIdentityStore, type IdentityStore } from '../../src/index.js';

const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));

describe('kubeIdentityStore against the kube-emulator', function () {
  this.timeout(30_000);
  let kube: KubeEmulator;
  let store: IdentityStore;
  let objects: KubernetesObjectApi;

  before(async () => {
    kube = await startKubeEmulator({ crds: CRDS });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    store = kubeIdentityStore(kubeConfig);
    objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    for (const object of [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keymaster-system' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a', labels: { tier: 'gold' } } },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'keys', namespace: 'keymaster-system' },
        stringData: { AccessKeyID: 'AKIAEXAMPLE000000001' },
      },
      {
        apiVersion: API_VERSION,
        kind: 'AWSClusterStaticIdentity',
        metadata: { name: 'tenant-a' },
        spec: { secretRef: 'keys', allowedNamespaces: {} },
      },
    ]) {
      await objects.create(object);
    }
  });
  after(() => kube.stop());

  it('reads identities, Secrets (base64 data) and namespace labels, and answers undefined for what is missing', async () => {
    const identity = await store.getIdentity('AWSClusterStaticIdentity', 'tenant-a', 'tenant-a');
    expect(identity).to.deep.include({
      kind: 'AWSClusterStaticIdentity',
      spec: { secretRef: 'keys', allowedNamespaces: {} },
    });
    expect(identity?.metadata.uid).to.be.a('string').and.not.empty;
    expect(await store.getIdentity('AWSClusterRoleIdentity', 'tenant-a', 'tenant-a')).to.equal(undefined);
    expect(await store.getSecret('keymaster-system', 'keys')).to.deep.equal({
      data: { AccessKeyID: Buffer.from('AKIAEXAMPLE000000001').toString('base64') },
    });
    expect(await store.getSecret('tenant-a', 'keys'), 'only the namespace asked for').to.equal(undefined);
    const namespace = await store.getNamespace('tenant-a');
    expect(namespace?.name).to.equal('tenant-a');
    expect(namespace?.labels).to.include({ tier: 'gold' });
    expect(await store.getNamespace('nowhere')).to.equal(undefined);
  });
});
