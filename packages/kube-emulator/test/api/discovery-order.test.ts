import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

/** The details of discovery and OpenAPI that kube-apiserver 1.37 publishes (found by testenv's fidelity corpus). */
describe('discovery and OpenAPI as kube-apiserver 1.37 publishes them', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  type Resource = { name: string; verbs: string[]; storageVersionHash?: string };
  const resourceList = async (path: string) =>
    (await call(cluster.emulator, 'GET', path)).body as { apiVersion?: string; resources: Resource[] };

  it('lists groups by kube-apiserver priority, custom groups last', async () => {
    const groups = ((await call(cluster.emulator, 'GET', '/apis')).body as { groups: { name: string }[] }).groups;
    expect(groups.map((group) => group.name)).to.deep.equal([
      'apiregistration.k8s.io',
      'apps',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'rbac.authorization.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'coordination.k8s.io',
      'infrastructure.keymaster.dev',
    ]);
    const aggregated = (await call(cluster.emulator, 'GET', '/apis', undefined, { Accept: AGGREGATED })).body as {
      items: { metadata: { name: string } }[];
    };
    expect(aggregated.items.map((item) => item.metadata.name)).to.deep.equal(groups.map((group) => group.name));
  });

  it('publishes storageVersionHash, the core list without apiVersion, resources by name', async () => {
    const core = await resourceList('/api/v1');
    expect(core).not.to.have.property('apiVersion');
    expect(core.resources.map((resource) => resource.name).slice(0, 3)).to.deep.equal([
      'configmaps',
      'events',
      'namespaces',
    ]);
    const hash = (list: { resources: Resource[] }, name: string) =>
      list.resources.find((resource) => resource.name === name)?.storageVersionHash;
    // 8 bytes of SHA-256 of "group/version/kind", as kube-apiserver computes them.
    expect(hash(core, 'configmaps')).to.equal('qFsyl6wFWjQ=');
    expect(hash(core, 'namespaces/status')).to.equal(undefined);
    // events.k8s.io Events are stored as v1 Events: the same hash.
    expect(hash(await resourceList('/apis/events.k8s.io/v1'), 'events')).to.equal(hash(core, 'events'));
    const apps = await resourceList('/apis/apps/v1');
    expect(apps.apiVersion).to.equal('v1');
    expect(hash(apps, 'deployments')).to.equal('8aSe+NMegvE=');
    const ours = await resourceList('/apis/infrastructure.keymaster.dev/v1beta1');
    expect(hash(ours, 'awsclustercontrolleridentities')).to.equal('9ufdgUjzLGk=');
    // CustomResourceDefinitions are still stored as v1beta1 objects.
    const extensions = await resourceList('/apis/apiextensions.k8s.io/v1');
    expect(hash(extensions, 'customresourcedefinitions')).to.equal('jfWCUB31mvA=');
    expect(hash(await resourceList('/apis/authorization.k8s.io/v1'), 'selfsubjectaccessreviews')).to.equal(undefined);
  });

  it('lists the verbs as kube-apiserver does: custom resources in its order, namespaces not deleted as a collection', async () => {
    const ours = await resourceList('/apis/infrastructure.keymaster.dev/v1beta1');
    expect(ours.resources.find((resource) => resource.name === 'awsclusters')?.verbs).to.deep.equal([
      'delete',
      'deletecollection',
      'get',
      'list',
      'patch',
      'create',
      'update',
      'watch',
    ]);
    const core = await resourceList('/api/v1');
    expect(core.resources.find((resource) => resource.name === 'namespaces')?.verbs).to.deep.equal([
      'create',
      'delete',
      'get',
      'list',
      'patch',
      'update',
      'watch',
    ]);
    const deleteAll = await call(cluster.emulator, 'DELETE', '/api/v1/namespaces');
    expect(deleteAll.status).to.equal(405);
  });

  it('gives the core group in aggregated discovery its empty version, resources and subresources by name', async () => {
    const body = (await call(cluster.emulator, 'GET', '/api', undefined, { Accept: AGGREGATED })).body as {
      items: {
        versions: {
          resources: {
            resource: string;
            responseKind: { version: string };
            subresources?: { subresource: string; responseKind: { group: string; version: string } }[];
          }[];
        }[];
      }[];
    };
    const resources = body.items[0]!.versions[0]!.resources;
    const names = resources.map((resource) => resource.resource);
    expect(names).to.deep.equal([...names].sort());
    const namespaces = resources.find((resource) => resource.resource === 'namespaces')!;
    expect(namespaces.responseKind.version).to.equal('');
    expect(namespaces.subresources?.map((subresource) => subresource.subresource)).to.deep.equal([
      'finalize',
      'status',
    ]);
    const token = resources.find((resource) => resource.resource === 'serviceaccounts')!.subresources![0]!;
    expect(token.responseKind).to.include({ group: 'authentication.k8s.io', version: 'v1' });
  });

  it('serves the OpenAPI v3 index as text, the all-namespaces list path, no deletecollection for namespaces', async () => {
    const index = await call(cluster.emulator, 'GET', '/openapi/v3');
    expect(index.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const ours = (await call(cluster.emulator, 'GET', '/openapi/v3/apis/infrastructure.keymaster.dev/v1beta1'))
      .body as { paths: Record<string, Record<string, unknown>> };
    const prefix = '/apis/infrastructure.keymaster.dev/v1beta1';
    expect(Object.keys(ours.paths[`${prefix}/awsclusters`]!)).to.deep.equal(['get', 'parameters']);
    expect(ours.paths[`${prefix}/namespaces/{namespace}/awsclusters`]).to.have.property('delete');
    expect(ours.paths[`${prefix}/namespaces/{namespace}/awsclusters/{name}/status`]).not.to.have.property('delete');
    const core = (await call(cluster.emulator, 'GET', '/openapi/v3/api/v1')).body as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(core.paths['/api/v1/namespaces']).not.to.have.property('delete');
    expect(core.components.schemas).to.have.property('io.k8s.api.core.v1.NamespaceList');
  });

  it('describes apiVersion, kind and metadata as kube-apiserver does: allOf in v3, $ref beside the description in v2', async () => {
    const v3 = (await call(cluster.emulator, 'GET', '/openapi/v3/apis/infrastructure.keymaster.dev/v1beta1')).body as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    const cluster3 = v3.components.schemas['dev.keymaster.infrastructure.v1beta1.AWSCluster']!;
    expect(cluster3.properties.metadata).to.deep.equal({
      description:
        "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    expect(String(cluster3.properties.kind!.description)).to.match(/^Kind is a string value representing the REST/);
    const list3 = v3.components.schemas['dev.keymaster.infrastructure.v1beta1.AWSClusterList']!;
    expect(list3.properties.metadata!.allOf).to.deep.equal([
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
    ]);
    expect(v3.components.schemas).to.have.property('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
    const v2 = (await call(cluster.emulator, 'GET', '/openapi/v2')).body as {
      definitions: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    };
    const cluster2 = v2.definitions['dev.keymaster.infrastructure.v1beta1.AWSCluster']!;
    expect(cluster2.properties.metadata).to.include({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    // Swagger 2.0 has no structural defaults: none in v2, as in kube-apiserver's.
    expect(JSON.stringify(cluster2)).not.to.include('"default"');
    expect(JSON.stringify(cluster3)).to.include('"default"');
  });
});
