import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('controllers: garbage collection and CRD lifecycle', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const exists = async (path: string): Promise<boolean> => (await call(cluster.emulator, 'GET', path)).status === 200;
  const gone = async (path: string): Promise<void> => {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (!(await exists(path))) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`${path} still exists`);
  };
  const owned = async (owner: string, dependent: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const created = await call(cluster.emulator, 'POST', CMS, { metadata: { name: owner } });
    const uid = (created.body as { metadata: { uid: string } }).metadata.uid;
    await call(cluster.emulator, 'POST', CMS, {
      metadata: {
        name: dependent,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, ...extra }],
      },
    });
    return uid;
  };

  before(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  after(() => cluster.stop());

  it('deletes dependents in the background once the owner is gone', async () => {
    await owned('owner-bg', 'dependent-bg');
    await call(cluster.emulator, 'DELETE', `${CMS}/owner-bg`);
    await gone(`${CMS}/dependent-bg`);
  });

  it('deletes dependents first with foreground propagation', async () => {
    await owned('owner-fg', 'dependent-fg', { blockOwnerDeletion: true });
    await call(cluster.emulator, 'POST', CMS, { metadata: { name: 'blocker' } });
    const deleting = await call(cluster.emulator, 'DELETE', `${CMS}/owner-fg`, { propagationPolicy: 'Foreground' });
    expect((deleting.body as { metadata: { finalizers: string[] } }).metadata.finalizers).to.deep.equal([
      'foregroundDeletion',
    ]);
    await gone(`${CMS}/dependent-fg`);
    await gone(`${CMS}/owner-fg`);
  });

  it('keeps dependents without the reference when orphaning', async () => {
    await owned('owner-or', 'dependent-or');
    await call(cluster.emulator, 'DELETE', `${CMS}/owner-or?propagationPolicy=Orphan`);
    await gone(`${CMS}/owner-or`);
    const dependent = (await call(cluster.emulator, 'GET', `${CMS}/dependent-or`)).body as {
      metadata: Record<string, unknown>;
    };
    expect(dependent.metadata).to.not.have.property('ownerReferences');
  });

  it('collects a dependent whose only owner does not exist, and drops such a reference beside a live owner', async () => {
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '6f1d3c4e-0000-4000-8000-000000000000' };
    await call(cluster.emulator, 'POST', CMS, { metadata: { name: 'dangling', ownerReferences: [ghost] } });
    await gone(`${CMS}/dangling`);
    const live = await call(cluster.emulator, 'POST', CMS, { metadata: { name: 'live-owner' } });
    const owner = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'live-owner',
      uid: (live.body as { metadata: { uid: string } }).metadata.uid,
    };
    // A reference to a kind that is not served is left alone, as kube-controller-manager cannot look it up.
    const unknown = {
      apiVersion: 'example.com/v1',
      kind: 'Nothing',
      name: 'n',
      uid: '6f1d3c4e-0000-4000-8000-000000000001',
    };
    await call(cluster.emulator, 'POST', CMS, { metadata: { name: 'half', ownerReferences: [ghost, owner, unknown] } });
    const names = async () =>
      (
        (await call(cluster.emulator, 'GET', `${CMS}/half`)).body as {
          metadata: { ownerReferences?: { name: string }[] };
        }
      ).metadata.ownerReferences?.map((reference) => reference.name);
    for (let attempt = 0; attempt < 100 && (await names())?.length !== 2; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await names()).to.deep.equal(['live-owner', 'n']);
  });

  it("resolves a namespaced owner in its dependent's namespace only, and leaves a cluster-scoped dependent's", async () => {
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', { metadata: { name: 'elsewhere' } });
    const live = await call(cluster.emulator, 'POST', CMS, { metadata: { name: 'here-owner' } });
    const uid = (live.body as { metadata: { uid: string } }).metadata.uid;
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'here-owner', uid };
    // The same owner from another namespace is absent there: the dependent is collected.
    await call(cluster.emulator, 'POST', '/api/v1/namespaces/elsewhere/configmaps', {
      metadata: { name: 'across', ownerReferences: [owner] },
    });
    await gone('/api/v1/namespaces/elsewhere/configmaps/across');
    // A cluster-scoped dependent cannot have a namespaced owner: the collector leaves it.
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', {
      metadata: { name: 'owned-namespace', ownerReferences: [{ ...owner, name: 'nowhere' }] },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await exists('/api/v1/namespaces/owned-namespace')).to.equal(true);
    // A reference whose name is not the owner's with that uid is dangling too.
    await call(cluster.emulator, 'POST', CMS, {
      metadata: { name: 'misnamed', ownerReferences: [{ ...owner, name: 'other' }] },
    });
    await gone(`${CMS}/misnamed`);
  });

  it('serves a CRD at once, with Established, and removes its objects when it is deleted', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } },
              },
            },
          },
        ],
      },
    };
    const created = await call(
      cluster.emulator,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    const conditions = (created.body as { status: { conditions: { type: string; status: string }[] } }).status
      .conditions;
    expect(conditions.find((condition) => condition.type === 'Established')?.status).to.equal('True');
    // Defaulted as kube-apiserver defaults it; the cleanup finalizer comes with the first delete.
    expect(created.body).to.nested.include({ 'spec.conversion.strategy': 'None' });
    expect(created.body).to.not.have.nested.property('metadata.finalizers');
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const widget = await call(cluster.emulator, 'POST', widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: {},
    });
    expect(widget.body).to.nested.include({ 'spec.size': 3 });
    const deleted = await call(
      cluster.emulator,
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    );
    expect((deleted.body as { metadata: { finalizers?: string[] } }).metadata.finalizers).to.deep.equal([
      'customresourcecleanup.apiextensions.k8s.io',
    ]);
    await gone('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect((await call(cluster.emulator, 'GET', widgets)).status).to.equal(404);
    await call(cluster.emulator, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const list = (await call(cluster.emulator, 'GET', widgets)).body as { items: unknown[] };
    expect(list.items).to.deep.equal([]);
  });

  it('rejects an invalid CRD with causes', async () => {
    const invalid = await call(cluster.emulator, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'wrong.example.com' },
      spec: { group: 'example.com', names: { plural: 'gadgets', kind: 'Gadget' }, scope: 'Somewhere', versions: [] },
    });
    expect(invalid.status).to.equal(422);
    const fields = (invalid.body as { details: { causes: { field: string }[] } }).details.causes.map(
      (cause) => cause.field,
    );
    expect(fields).to.include.members(['metadata.name', 'spec.scope', 'spec.versions']);
  });

  it('terminates a namespace and everything in it', async () => {
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await call(cluster.emulator, 'POST', '/api/v1/namespaces/doomed/secrets', { metadata: { name: 's' } });
    await call(cluster.emulator, 'DELETE', '/api/v1/namespaces/doomed');
    await gone('/api/v1/namespaces/doomed/secrets/s');
    await gone('/api/v1/namespaces/doomed');
  });
});
