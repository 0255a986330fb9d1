import { PassThrough } from 'node:stream';
import { CoreV1Api, KubeConfig, type V1Namespace } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { AdoptionCaches } from '../../src/adoption/adoption-caches.js';
import { createControllerLogger } from '../../src/logging.js';
import { Informer } from '../../src/runtime/informer.js';

describe('AdoptionCaches', () => {
  let kube: KubeEmulator;

  before(async () => {
    kube = await startKubeEmulator({});
  });
  after(async () => {
    await kube.stop();
  });

  it('without Cluster API and CAPA installed: synced, watching nothing, and one log line naming the kinds and the fix', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const lines: { level: string; message: string; missing?: string[]; hint?: string }[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as never);
    });
    const failures: string[] = [];
    const caches = new AdoptionCaches({
      kubeConfig,
      namespaces: new Informer<V1Namespace>({
        kubeConfig,
        path: '/api/v1/namespaces',
        list: () => core.listNamespace(),
        resyncMs: 0,
      }),
      resyncMs: 0,
      logger: createControllerLogger('info', 'json', stream),
      onError: (what) => failures.push(what),
    });
    await caches.start();
    await caches.waitForSync();
    expect(caches.synced).to.equal(true);
    await caches.stop();
    const warned = lines.filter(({ level }) => level === 'warn');
    expect(warned.map(({ missing }) => missing)).to.deep.equal([
      [
        'clusters.cluster.x-k8s.io/v1beta2',
        'awsclusters.infrastructure.cluster.x-k8s.io/v1beta2',
        'awsmanagedclusters.infrastructure.cluster.x-k8s.io/v1beta2',
        'awsmanagedcontrolplanes.controlplane.cluster.x-k8s.io/v1beta2',
      ],
    ]);
    expect(warned[0]!.hint).to.include('restart keymaster');
    expect(failures, 'watch failures: the informers of absent kinds never started').to.deep.equal([]);
  });
});
