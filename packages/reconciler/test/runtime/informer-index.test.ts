import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { Informer } from '../../src/runtime/informer.js';
import { eventually } from '../integration/harness.js';

const NAMESPACE = 'default';
/** ConfigMaps filed under the comma-separated groups of their `groups` key. */
const groupsOf = (configMap: V1ConfigMap) => (configMap.data?.['groups'] ?? '').split(',').filter(Boolean);
const configMap = (name: string, groups: string) => ({ metadata: { name, namespace: NAMESPACE }, data: { groups } });

describe('Informer indexes', () => {
  let kube: KubeEmulator;
  let core: CoreV1Api;
  let informer: Informer<V1ConfigMap>;
  /** What the index held for the groups an update left and entered, read in an update handler. */
  const readInUpdate: string[][] = [];

  const named = (group: string, index = 'groups') =>
    informer
      .byIndex(index, group)
      .map((object) => object.metadata?.name ?? '')
      .sort();

  before(async () => {
    kube = await startKubeEmulator({});
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: configMap('listed', 'red,blue') });
    informer = new Informer<V1ConfigMap>({
      kubeConfig,
      path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: NAMESPACE }),
      resyncMs: 0,
    });
    informer.index('groups', groupsOf);
    informer.addHandlers({
      update: (object) => readInUpdate.push([...groupsOf(object).flatMap((group) => named(group))]),
    });
    await informer.start();
    await informer.waitForSync();
  });
  after(async () => {
    await informer.stop();
    await kube.stop();
  });

  it('files listed objects under each of their values', () => {
    expect(named('red')).to.deep.equal(['listed']);
    expect(named('blue')).to.deep.equal(['listed']);
    expect(named('green')).to.deep.equal([]);
  });

  it('files a watched object when added, moves it when its values change, and drops it when deleted', async () => {
    await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: configMap('watched', 'red') });
    await eventually(() => expect(named('red')).to.deep.equal(['listed', 'watched']));

    await core.replaceNamespacedConfigMap({
      name: 'watched',
      namespace: NAMESPACE,
      body: configMap('watched', 'green'),
    });
    await eventually(() => expect(named('green')).to.deep.equal(['watched']));
    expect(named('red')).to.deep.equal(['listed']);
    // The update handler already read the index with the object moved.
    expect(readInUpdate.at(-1)).to.deep.equal(['watched']);

    await core.deleteNamespacedConfigMap({ name: 'watched', namespace: NAMESPACE });
    await eventually(() => expect(named('green')).to.deep.equal([]));
  });

  it('hands out the objects as cached now', async () => {
    await core.replaceNamespacedConfigMap({
      name: 'listed',
      namespace: NAMESPACE,
      body: {
        ...configMap('listed', 'red,blue'),
        metadata: { name: 'listed', namespace: NAMESPACE, labels: { v: '2' } },
      },
    });
    await eventually(() => expect(informer.byIndex('groups', 'red')[0]?.metadata?.labels).to.deep.equal({ v: '2' }));
    expect(informer.byIndex('groups', 'red')[0]).to.equal(informer.get('listed', NAMESPACE));
  });

  it('indexes what is cached already when an index is defined late', () => {
    informer.index('first-group', (object) => groupsOf(object).slice(0, 1));
    expect(named('red', 'first-group')).to.deep.equal(['listed']);
    expect(named('blue', 'first-group')).to.deep.equal([]);
  });

  it('refuses an index defined twice, or read without being defined', () => {
    expect(() => informer.index('groups', groupsOf)).to.throw(/groups is defined twice/);
    expect(() => informer.byIndex('colours', 'red')).to.throw(/colours is not defined/);
  });
});
