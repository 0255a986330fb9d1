import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../../helpers/emulator.js';

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

describe('Namespace finalizers and /finalize as kube-apiserver 1.37 keeps them', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  type Namespace = {
    metadata: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      managedFields?: { manager: string; subresource?: string }[];
    };
    spec?: { finalizers?: string[] };
    status?: { phase?: string };
    message?: string;
  };
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await call(cluster.emulator, method, path, body, headers);
    return { status: answer.status, body: answer.body as Namespace };
  };
  const managers = (namespace: Namespace) =>
    (namespace.metadata.managedFields ?? []).map(({ manager, subresource }) =>
      [manager, subresource].filter(Boolean).join('/'),
    );

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it("adds the kubernetes finalizer to the namespace's own, and validates them", async () => {
    const own = await send('POST', '/api/v1/namespaces', {
      metadata: { name: 'own' },
      spec: { finalizers: ['example.com/x'] },
    });
    expect(own.body.spec?.finalizers).to.deep.equal(['example.com/x', 'kubernetes']);
    const bad = await send('POST', '/api/v1/namespaces', {
      metadata: { name: 'bad' },
      spec: { finalizers: ['not valid!'] },
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.message).to.match(
      /^Namespace "bad" is invalid: \[spec.finalizers: Invalid value: "not valid!": name is neither a standard finalizer name nor is it fully qualified, spec.finalizers: Invalid value: "not valid!": name part must consist of/,
    );
  });

  it('records no managedFields entry for /finalize, and empties the spec when the finalizers are gone', async () => {
    await send('POST', '/api/v1/namespaces?fieldManager=creator', { metadata: { name: 'finalized' } });
    const finalized = await send('PUT', '/api/v1/namespaces/finalized/finalize?fieldManager=finisher', {
      metadata: { name: 'finalized' },
      spec: { finalizers: [] },
    });
    expect(finalized.status).to.equal(200);
    expect(finalized.body.spec).to.deep.equal({});
    expect(managers(finalized.body)).to.deep.equal(['creator']);
    // The namespace controller's own finalize is no entry either; its status conditions are.
    await send('POST', '/api/v1/namespaces?fieldManager=creator', {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    await send('DELETE', '/api/v1/namespaces/held');
    let held = await send('GET', '/api/v1/namespaces/held');
    for (let tries = 0; held.body.spec?.finalizers && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      held = await send('GET', '/api/v1/namespaces/held');
    }
    expect(held.body.spec).to.deep.equal({});
    expect(managers(held.body)).to.deep.equal(['creator', 'kube-controller-manager/status']);
  });

  it('keeps label and annotation changes through /status (not the spec) and /finalize (not the status)', async () => {
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'relabelled', labels: { tenancy: 'a' } } });
    const status = await send('PUT', '/api/v1/namespaces/relabelled/status?fieldManager=status-writer', {
      metadata: { name: 'relabelled', labels: { tenancy: 'b' }, annotations: { note: 'x' } },
      spec: { finalizers: [] },
      status: { phase: 'Active' },
    });
    expect(status.body.metadata.labels).to.deep.equal({ tenancy: 'b', [NAME_LABEL]: 'relabelled' });
    expect(status.body.metadata.annotations).to.deep.equal({ note: 'x' });
    expect(status.body.spec, 'the spec is the stored one').to.deep.equal({ finalizers: ['kubernetes'] });
    expect(managers(status.body), "the labels are the status writer's").to.include('status-writer/status');
    const finalized = await send('PUT', '/api/v1/namespaces/relabelled/finalize', {
      metadata: { name: 'relabelled', labels: { tenancy: 'c' } },
      spec: { finalizers: ['kubernetes', 'example.com/hold'] },
      status: { phase: 'Terminating' },
    });
    expect(finalized.body.metadata.labels).to.deep.equal({ tenancy: 'c', [NAME_LABEL]: 'relabelled' });
    expect(finalized.body.spec).to.deep.equal({ finalizers: ['kubernetes', 'example.com/hold'] });
    expect(finalized.body.status, 'the status is the stored one').to.deep.equal({ phase: 'Active' });
    const updated = await send('PUT', '/api/v1/namespaces/relabelled', {
      metadata: { name: 'relabelled', labels: { tenancy: 'd' } },
      spec: { finalizers: ['example.com/other'] },
    });
    expect(updated.body.metadata.labels?.tenancy).to.equal('d');
    expect(updated.body.spec, 'spec.finalizers change through /finalize alone').to.deep.equal({
      finalizers: ['kubernetes', 'example.com/hold'],
    });
    await send('PUT', '/api/v1/namespaces/relabelled/finalize', { metadata: { name: 'relabelled' } });
  });

  it('serves PUT alone on /finalize', async () => {
    for (const [method, body] of [['GET'], ['PATCH', {}], ['DELETE']] as const) {
      const headers: Record<string, string> = { 'Content-Type': 'application/merge-patch+json' };
      const answer = await send(method, '/api/v1/namespaces/default/finalize', body, headers);
      expect([method, answer.status, answer.body.message]).to.deep.equal([
        method,
        405,
        'the server does not allow this method on the requested resource',
      ]);
    }
  });
});
