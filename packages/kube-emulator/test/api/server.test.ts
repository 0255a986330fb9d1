import { expect } from 'chai';
import { KUBERNETES_MINOR } from '../../src/version.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

describe('discovery, OpenAPI and errors over HTTP', function () {
  this.timeout(10_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('serves /version (the minor it follows) and health', async () => {
    const minor = String(KUBERNETES_MINOR);
    expect((await call(cluster.emulator, 'GET', '/version')).body).to.include({
      major: '1',
      minor,
      gitVersion: `v1.${minor}.0`,
      // kube-apiserver's compatibility versions: it emulates its own minor and can be rolled back one.
      emulationMajor: '1',
      emulationMinor: minor,
      minCompatibilityMajor: '1',
      minCompatibilityMinor: String(KUBERNETES_MINOR - 1),
    });
    expect((await call(cluster.emulator, 'GET', '/readyz')).body).to.equal('ok');
  });

  it('serves legacy discovery', async () => {
    expect((await call(cluster.emulator, 'GET', '/api')).body).to.include({ kind: 'APIVersions' });
    const groups = (await call(cluster.emulator, 'GET', '/apis')).body as { groups: { name: string }[] };
    expect(groups.groups.map((group) => group.name)).to.include.members([
      'infrastructure.keymaster.dev',
      'coordination.k8s.io',
      'events.k8s.io',
      'apiextensions.k8s.io',
      'admissionregistration.k8s.io',
    ]);
    const core = (await call(cluster.emulator, 'GET', '/api/v1')).body as {
      resources: { name: string; namespaced: boolean }[];
    };
    expect(core.resources.map((resource) => resource.name)).to.include.members([
      'namespaces',
      'namespaces/status',
      'namespaces/finalize',
      'secrets',
      'configmaps',
      'serviceaccounts',
      'events',
    ]);
    const ours = (await call(cluster.emulator, 'GET', '/apis/infrastructure.keymaster.dev/v1beta1')).body as {
      resources: { name: string; shortNames?: string[] }[];
    };
    expect(ours.resources.find((resource) => resource.name === 'awsclusters')?.shortNames).to.deep.equal(['kmc']);
    expect(ours.resources.map((resource) => resource.name)).to.include('awsclusters/status');
  });

  it('serves aggregated discovery with its content type', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const response = await call(cluster.emulator, 'GET', '/apis', undefined, { Accept: accept });
    expect(response.headers.get('content-type')).to.equal(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const body = response.body as {
      items: { metadata: { name: string }; versions: { resources: { resource: string; scope: string }[] }[] }[];
    };
    const ours = body.items.find((item) => item.metadata.name === 'infrastructure.keymaster.dev');
    expect(ours?.versions[0]?.resources.find((resource) => resource.resource === 'awsclusters')?.scope).to.equal(
      'Namespaced',
    );
    const v2beta1 = await call(cluster.emulator, 'GET', '/api', undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    });
    expect(v2beta1.body).to.include({ apiVersion: 'apidiscovery.k8s.io/v2beta1' });
  });

  it('serves OpenAPI v3 documents with the CRD schemas, and v2 as JSON or protobuf', async () => {
    const index = (await call(cluster.emulator, 'GET', '/openapi/v3')).body as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const url = index.paths['apis/infrastructure.keymaster.dev/v1beta1']!.serverRelativeURL;
    const document = (await call(cluster.emulator, 'GET', url)).body as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const schema = document.components.schemas['dev.keymaster.infrastructure.v1beta1.AWSCluster']!;
    expect(schema.properties).to.have.nested.property('spec.properties.region.pattern');
    const v2 = (await call(cluster.emulator, 'GET', '/openapi/v2')).body as { definitions: Record<string, unknown> };
    expect(v2.definitions).to.have.property('dev.keymaster.infrastructure.v1beta1.AWSClusterRoleIdentity');
    const protobuf = await fetch(`${cluster.emulator.url}/openapi/v2`, {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(protobuf.headers.get('content-type')).to.equal('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(Buffer.from(await protobuf.arrayBuffer()).includes('AWSClusterRoleIdentity')).to.equal(true);
  });

  it('answers unknown paths, methods and media types with Status errors', async () => {
    // kube-apiserver: unknown groups, versions and custom resources are Go's plain 404; built-in
    // group versions answer a NotFound Status.
    const unknownGroup = await call(cluster.emulator, 'GET', '/apis/nope.example.com/v1/things');
    expect(unknownGroup).to.include({ status: 404, body: '404 page not found\n' });
    expect(unknownGroup.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const clusterScoped = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awstagpolicies';
    expect((await call(cluster.emulator, 'GET', clusterScoped)).body).to.equal('404 page not found\n');
    expect((await call(cluster.emulator, 'GET', '/apis/apps/v1/namespaces/default/things')).body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    expect((await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps/x', {})).status).to.equal(405);
    expect(
      (
        await call(cluster.emulator, 'GET', '/api/v1/namespaces', undefined, {
          Accept: 'application/vnd.kubernetes.protobuf',
        })
      ).status,
    ).to.equal(406);
    const strategic = await call(
      cluster.emulator,
      'PATCH',
      '/apis/infrastructure.keymaster.dev/v1beta1/awstagpolicies/default',
      {},
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    expect(strategic.status).to.equal(415);
    expect(strategic.body).to.include({ reason: 'UnsupportedMediaType' });
    expect((await call(cluster.emulator, 'POST', '/api/v1/namespaces', '{not json')).body).to.include({
      code: 400,
      reason: 'BadRequest',
    });
  });

  it('stores admission webhook configurations', async () => {
    const path = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    const webhook = {
      name: 'check.keymaster.dev',
      clientConfig: { url: 'https://127.0.0.1:9443/validate' },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    const created = await call(cluster.emulator, 'POST', path, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'keymaster' },
      webhooks: [webhook],
    });
    expect(created.status).to.equal(201);
    const table = await call(cluster.emulator, 'GET', path, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(table.body).to.nested.include({ 'rows[0].cells[0]': 'keymaster', 'rows[0].cells[1]': 1 });
  });

  it('returns PartialObjectMetadata and Tables on request', async () => {
    const partial = await call(cluster.emulator, 'GET', '/api/v1/namespaces', undefined, {
      Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    expect(partial.body).to.include({ kind: 'PartialObjectMetadataList' });
    const table = await call(
      cluster.emulator,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit=2',
      undefined,
      { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    );
    const body = table.body as {
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[]; object: { kind: string } }[];
      metadata: { continue?: string };
    };
    expect(body.columnDefinitions.map((column) => column.name)).to.deep.equal(['Name', 'Created At']);
    expect(body.rows).to.have.length(2);
    expect(body.rows[0]!.object.kind).to.equal('PartialObjectMetadata');
    expect(body.metadata.continue).to.be.a('string');
  });
});
