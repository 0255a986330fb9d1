import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { Informer } from '../../src/runtime/informer.js';
import { eventually } from '../integration/harness.js';

describe('Informer with a transform', () => {
  let kube: KubeEmulator;
  let core: CoreV1Api;
  let informer: Informer<V1ConfigMap>;
  const seen: { event: string; object: V1ConfigMap; previous?: V1ConfigMap }[] = [];
  const configMap = (name: string, data: Record<string, string>) => ({
    metadata: { name, namespace: 'default', annotations: { big: 'x'.repeat(1000), small: 'kept' } },
    data,
  });

  before(async () => {
    kube = await startKubeEmulator({});
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('listed', { a: '1' }) });
    informer = new Informer<V1ConfigMap>({
      kubeConfig,
      path: '/api/v1/namespaces/default/configmaps',
      list: () => core.listNamespacedConfigMap({ namespace: 'default' }),
      resyncMs: 0,
      // Keeps name, resourceVersion, the small annotation and data: nothing else.
      transform: ({ metadata, data }) => ({
        metadata: {
          name: metadata?.name,
          namespace: metadata?.namespace,
          resourceVersion: metadata?.resourceVersion,
          annotations: { small: metadata?.annotations?.['small'] ?? '' },
        },
        ...(data ? { data } : {}),
      }),
      handlers: {
        add: (object) => seen.push({ event: 'add', object }),
        update: (object, previous) => seen.push({ event: 'update', object, ...(previous ? { previous } : {}) }),
        delete: (object) => seen.push({ event: 'delete', object }),
      },
    });
    await informer.start();
    await informer.waitForSync();
  });
  after(async () => {
    await informer.stop();
    await kube.stop();
  });

  const shape = (object: V1ConfigMap | undefined) => ({
    keys: Object.keys(object?.metadata ?? {}).sort(),
    annotations: object?.metadata?.annotations,
    data: object?.data,
  });
  const KEPT = ['annotations', 'name', 'namespace', 'resourceVersion'];

  it('keeps only what the transform keeps of listed objects, in the cache and in the handlers', () => {
    const listed = informer.get('listed', 'default');
    expect(shape(listed)).to.deep.equal({ keys: KEPT, annotations: { small: 'kept' }, data: { a: '1' } });
    expect(seen.find(({ object }) => object.metadata?.name === 'listed')?.object).to.equal(listed);
  });

  it('does the same for watched objects: added, modified (with the previous one) and deleted', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('watched', { b: '2' }) });
    await eventually(() => expect(informer.get('watched', 'default')).to.not.equal(undefined));
    expect(shape(informer.get('watched', 'default'))).to.deep.equal({
      keys: KEPT,
      annotations: { small: 'kept' },
      data: { b: '2' },
    });
    // The server keeps managedFields; the cache does not.
    const live = await core.readNamespacedConfigMap({ name: 'watched', namespace: 'default' });
    expect(live.metadata?.managedFields).to.have.length.greaterThan(0);

    const changed = configMap('watched', { b: '3' });
    await core.replaceNamespacedConfigMap({
      name: 'watched',
      namespace: 'default',
      body: { ...changed, metadata: { ...changed.metadata, resourceVersion: live.metadata?.resourceVersion } },
    });
    const update = await eventually(() => {
      const found = seen.find(({ event, object }) => event === 'update' && object.metadata?.name === 'watched');
      expect(found).to.not.equal(undefined);
      return found!;
    });
    expect(shape(update.object).data).to.deep.equal({ b: '3' });
    expect(shape(update.previous)).to.deep.equal({ keys: KEPT, annotations: { small: 'kept' }, data: { b: '2' } });
    expect(update.object.metadata?.resourceVersion).to.not.equal(update.previous?.metadata?.resourceVersion);

    await core.deleteNamespacedConfigMap({ name: 'watched', namespace: 'default' });
    const deleted = await eventually(() => {
      const found = seen.find(({ event }) => event === 'delete');
      expect(found).to.not.equal(undefined);
      return found!;
    });
    expect(shape(deleted.object).keys).to.deep.equal(KEPT);
    expect(informer.get('watched', 'default')).to.equal(undefined);
  });
});

describe('Informer with a transform that keeps some objects only, listing page by page', () => {
  let kube: KubeEmulator;
  let core: CoreV1Api;
  let informer: Informer<V1ConfigMap>;
  const pages: (string | undefined)[] = [];
  const deleted: V1ConfigMap[] = [];
  const configMap = (name: string, kept: string) => ({ metadata: { name, namespace: 'default', labels: { kept } } });

  before(async () => {
    kube = await startKubeEmulator({});
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    core = kubeConfig.makeApiClient(CoreV1Api);
    for (const index of [1, 2, 3, 4, 5])
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: configMap(`listed-${index}`, `${index % 2}`),
      });
    informer = new Informer<V1ConfigMap>({
      kubeConfig,
      path: '/api/v1/namespaces/default/configmaps',
      list: async (continueToken) => {
        pages.push(continueToken);
        const { items, metadata } = await core.listNamespacedConfigMap({
          namespace: 'default',
          limit: 2,
          ...(continueToken ? { _continue: continueToken } : {}),
        });
        return { items, metadata: { resourceVersion: metadata?.resourceVersion, continue: metadata?._continue } };
      },
      resyncMs: 0,
      transform: (object) => (object.metadata?.labels?.['kept'] === '1' ? object : undefined),
      handlers: { delete: (object) => deleted.push(object) },
    });
    await informer.start();
    await informer.waitForSync();
  });
  after(async () => {
    await informer.stop();
    await kube.stop();
  });

  const names = () => informer.list('default').map((object) => object.metadata?.name);

  it('reads every page, and caches only what the transform keeps', () => {
    expect(pages, 'three pages of two').to.have.length(3);
    expect(pages[0]).to.equal(undefined);
    expect(names().sort()).to.deep.equal(['listed-1', 'listed-3', 'listed-5']);
  });

  it('drops an object the transform keeps no more, as a deletion of what it cached, and watches on', async () => {
    const live = await core.readNamespacedConfigMap({ namespace: 'default', name: 'listed-1' });
    await core.replaceNamespacedConfigMap({
      namespace: 'default',
      name: 'listed-1',
      body: Object.assign(structuredClone(live), {
        metadata: Object.assign(live.metadata!, { labels: { kept: '0' } }),
      }),
    });
    await eventually(() => expect(names()).to.not.include('listed-1'));
    expect(deleted.map((object) => [object.metadata?.name, object.metadata?.labels])).to.deep.equal([
      ['listed-1', { kept: '1' }],
    ]);
    // Never cached, and the watch still delivers: neither adds nor deletes.
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('watched-0', '0') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('watched-1', '1') });
    await eventually(() => expect(names()).to.include('watched-1'));
    expect(names()).to.not.include('watched-0');
    expect(deleted).to.have.length(1);
  });
});

describe('Informer with a bound per namespace', () => {
  let kube: KubeEmulator;
  let core: CoreV1Api;
  let informer: Informer<V1ConfigMap>;
  const parked: string[] = [];
  const added: V1ConfigMap[] = [];
  const updated: { object: V1ConfigMap; previous: V1ConfigMap | undefined }[] = [];
  const deleted: string[] = [];
  const BIG = 'x'.repeat(100_000);
  const configMap = (name: string) => ({ metadata: { name, namespace: 'default' }, data: { big: BIG } });

  before(async () => {
    kube = await startKubeEmulator({});
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('first') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('second') });
    informer = new Informer<V1ConfigMap>({
      kubeConfig,
      path: '/api/v1/namespaces/default/configmaps',
      list: () => core.listNamespacedConfigMap({ namespace: 'default' }),
      resyncMs: 0,
      bound: {
        perNamespace: 2,
        park: ({ metadata }) => ({ metadata: { name: metadata?.name, namespace: metadata?.namespace } }),
        fetch: (name, namespace) => core.readNamespacedConfigMap({ name, namespace }),
      },
      handlers: {
        add: (object) => added.push(object),
        update: (object, previous) => updated.push({ object, previous }),
        delete: (object) => deleted.push(object.metadata?.name ?? ''),
        parked: (object) => parked.push(object.metadata?.name ?? ''),
      },
    });
    await informer.start();
    await informer.waitForSync();
  });
  after(async () => {
    await informer.stop();
    await kube.stop();
  });

  it('parks what a namespace holds past the bound: metadata only, out of get, list and the other handlers', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('third') });
    await eventually(() => expect(parked).to.include('third'));
    expect(informer.get('third', 'default')).to.equal(undefined);
    expect(informer.list('default').map(({ metadata }) => metadata?.name)).to.have.members(['first', 'second']);
    expect(informer.parked('third', 'default')).to.deep.equal({ metadata: { name: 'third', namespace: 'default' } });
    expect(added.map(({ metadata }) => metadata?.name)).to.have.members(['first', 'second']);
    expect(informer.count('default')).to.deep.equal({ served: 2, parked: 1 });
  });

  it('fetches a parked object whole when a served one goes, and hands it on as added', async () => {
    await core.deleteNamespacedConfigMap({ name: 'first', namespace: 'default' });
    await eventually(() => expect(informer.get('third', 'default')?.data?.['big']).to.equal(BIG));
    expect(deleted).to.deep.equal(['first']);
    expect(added.map(({ metadata }) => metadata?.name)).to.include('third');
    expect(informer.parked('third', 'default')).to.equal(undefined);
    expect(informer.list('default').map(({ metadata }) => metadata?.name)).to.have.members(['second', 'third']);

    // Its next change arrives whole through the watch, with the fetched object as the previous one.
    const live = await core.readNamespacedConfigMap({ name: 'third', namespace: 'default' });
    live.data = { big: BIG, more: '1' };
    await core.replaceNamespacedConfigMap({ name: 'third', namespace: 'default', body: live });
    const update = await eventually(() => {
      const found = updated.find(({ object }) => object.metadata?.name === 'third');
      expect(found).to.not.equal(undefined);
      return found!;
    });
    expect(update.object.data?.['more']).to.equal('1');
    expect(update.previous?.data?.['big']).to.equal(BIG);
  });
});
