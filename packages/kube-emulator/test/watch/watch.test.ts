import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { openWatch, until, type OpenWatch } from '../helpers/watch.js';

const configMap = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  data: { k: name },
});

describe('watches', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const cms = '/api/v1/namespaces/default/configmaps';

  before(async () => {
    cluster = await startTestCluster({ watchHistory: 20, bookmarkIntervalMs: 100 });
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
  });
  after(() => cluster.stop());

  it('starts with the current objects when no resourceVersion is given, then streams changes', async () => {
    await call(cluster.emulator, 'POST', cms, configMap('existing'));
    const watch = await openWatch(cluster.emulator, `${cms}?watch=true`);
    await until(() => watch.events.length === 1, 'the initial ADDED');
    await call(
      cluster.emulator,
      'PATCH',
      `${cms}/existing`,
      { data: { k: 'changed' } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    await call(cluster.emulator, 'DELETE', `${cms}/existing`);
    await until(() => watch.events.length === 3, 'MODIFIED and DELETED');
    watch.close();
    expect(watch.events.map((event) => `${event.type} ${event.object.metadata?.name}`)).to.deep.equal([
      'ADDED existing',
      'MODIFIED existing',
      'DELETED existing',
    ]);
  });

  it('resumes from a resourceVersion, in one namespace or all', async () => {
    const { body } = await call(cluster.emulator, 'GET', '/api/v1/configmaps');
    const version = (body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    await call(cluster.emulator, 'POST', cms, configMap('here'));
    await call(cluster.emulator, 'POST', '/api/v1/namespaces/other/configmaps', configMap('there'));
    const all = await openWatch(cluster.emulator, `/api/v1/configmaps?watch=1&resourceVersion=${version}`);
    const one = await openWatch(
      cluster.emulator,
      `/api/v1/namespaces/other/configmaps?watch=1&resourceVersion=${version}`,
    );
    await until(() => all.events.length === 2 && one.events.length === 1, 'replayed events');
    all.close();
    one.close();
    expect(all.events.map((event) => event.object.metadata?.name)).to.deep.equal(['here', 'there']);
    expect(one.events.map((event) => event.object.metadata?.name)).to.deep.equal(['there']);
  });

  it('resumes from a resourceVersion older than the resource itself, while the history holds it (1.35 on)', async () => {
    // deploy/crds were installed after resourceVersion 1: 1.33 answered 410 Expired here.
    const clusters = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters';
    const watch = await openWatch(cluster.emulator, `${clusters}?watch=true&resourceVersion=1`);
    await call(cluster.emulator, 'POST', clusters, {
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSCluster',
      metadata: { name: 'late' },
      spec: { region: 'us-west-2' },
    });
    await until(() => watch.events.length === 1, 'the new cluster');
    watch.close();
    expect(watch.events.map(({ type, object }) => [type, object.metadata?.name])).to.deep.equal([['ADDED', 'late']]);
  });

  it('serves watch lists (WatchList, on from 1.34): the objects, a bookmark marking their end, then changes', async () => {
    const list = `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=list%3Dyes`;
    await call(cluster.emulator, 'POST', cms, configMap('listed', { list: 'yes' }));
    const withBookmarks = await openWatch(cluster.emulator, `${list}&allowWatchBookmarks=true`);
    const without = await openWatch(cluster.emulator, list);
    const onlyChanges = await openWatch(
      cluster.emulator,
      `${cms}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&labelSelector=list%3Dyes`,
    );
    const watches = [withBookmarks, without, onlyChanges];
    const seen = (watch: OpenWatch, name: string) => watch.events.some((event) => event.object.metadata?.name === name);
    await until(() => seen(withBookmarks, 'listed') && seen(without, 'listed'), 'the initial events');
    await call(cluster.emulator, 'POST', cms, configMap('later', { list: 'yes' }));
    await until(() => watches.every((watch) => seen(watch, 'later')), 'the change');
    for (const watch of watches) watch.close();
    // Bookmarks also come every bookmarkIntervalMs (100 ms here): the one that marks the end is annotated.
    const shown = (watch: OpenWatch) =>
      watch.events
        .filter(({ type, object }) => type !== 'BOOKMARK' || object.metadata?.annotations !== undefined)
        .map(({ type, object }) => [type, object.metadata?.name ?? object.metadata?.annotations]);
    expect(shown(withBookmarks)).to.deep.equal([
      ['ADDED', 'listed'],
      ['BOOKMARK', { 'k8s.io/initial-events-end': 'true' }],
      ['ADDED', 'later'],
    ]);
    const end = withBookmarks.events.find(({ object }) => object.metadata?.annotations)!;
    expect(end.object).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(shown(without)).to.deep.equal([
      ['ADDED', 'listed'],
      ['ADDED', 'later'],
    ]);
    expect(shown(onlyChanges)).to.deep.equal([['ADDED', 'later']]);
  });

  it('answers a resourceVersion older than the kept history with a 410 Expired event', async () => {
    for (let index = 0; index < 25; index++) await call(cluster.emulator, 'POST', cms, configMap(`churn-${index}`));
    const watch = await openWatch(cluster.emulator, `${cms}?watch=true&resourceVersion=1`);
    await watch.ended;
    expect(watch.events).to.have.length(1);
    expect(watch.events[0]!.type).to.equal('ERROR');
    expect(watch.events[0]!.object).to.include({ code: 410, reason: 'Expired' });
  });

  it('sends bookmarks when allowed, and ends after timeoutSeconds', async () => {
    const watch = await openWatch(
      cluster.emulator,
      `${cms}?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1&labelSelector=none%3Dyes`,
    );
    await watch.ended;
    const bookmarks = watch.events.filter((event) => event.type === 'BOOKMARK');
    expect(bookmarks.length).to.be.greaterThan(0);
    expect(bookmarks[0]!.object.kind).to.equal('ConfigMap');
    expect(Number(bookmarks[0]!.object.metadata?.resourceVersion)).to.be.greaterThan(0);
  });

  it('turns label changes into ADDED and DELETED for a selector', async () => {
    const watch = await openWatch(cluster.emulator, `${cms}?watch=true&resourceVersion=0&labelSelector=app%3Dweb`);
    await call(cluster.emulator, 'POST', cms, configMap('relabeled', { app: 'db' }));
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    await call(cluster.emulator, 'PATCH', `${cms}/relabeled`, { metadata: { labels: { app: 'web' } } }, merge);
    await call(cluster.emulator, 'PATCH', `${cms}/relabeled`, { data: { k: 'again' } }, merge);
    await call(cluster.emulator, 'PATCH', `${cms}/relabeled`, { metadata: { labels: { app: 'db' } } }, merge);
    await until(() => watch.events.length === 3, 'three events');
    watch.close();
    expect(watch.events.map((event) => event.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('streams Table rows for kubectl get -w', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const watch = await openWatch(cluster.emulator, `${cms}?watch=true&fieldSelector=metadata.name%3Dtabled`, {
      Accept: accept,
    });
    await call(cluster.emulator, 'POST', cms, configMap('tabled'));
    await until(() => watch.events.length === 1, 'a table event');
    watch.close();
    expect(watch.events[0]!.object.kind).to.equal('Table');
    expect(watch.events[0]!.object.rows?.[0]?.cells.slice(0, 2)).to.deep.equal(['tabled', 1]);
  });
});
