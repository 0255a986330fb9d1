import { expect } from 'chai';
import { byVersionPriority } from '../../src/discovery/version-priority.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const spec = (properties: Record<string, unknown>) => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
});
/**
 * Cluster API's shape: the older version first in the CRD and served, the newer one stored, fields
 * that only the older one declares (one defaulted), and no conversion webhook.
 */
const gadgets = (conversion?: unknown) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    ...(conversion === undefined ? {} : { conversion }),
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        schema: spec({
          ref: { type: 'object', properties: { apiVersion: { type: 'string' }, name: { type: 'string' } } },
          strategy: { type: 'string', default: 'Rolling' },
        }),
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: spec({
          ref: { type: 'object', properties: { apiGroup: { type: 'string' }, name: { type: 'string' } } },
          replicas: { type: 'integer', default: 1 },
        }),
      },
    ],
  },
});

describe('custom resources of several versions, as kube-apiserver serves them', function () {
  this.timeout(20_000);

  it('orders versions by Kubernetes version priority: GA, beta, alpha, higher first, others last by name', () => {
    expect(
      ['v1alpha1', 'v1beta1', 'v2alpha3', 'foo', 'v1', 'v1beta2', 'v2', 'bar', 'v10'].sort(byVersionPriority),
    ).to.deep.equal(['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha3', 'v1alpha1', 'bar', 'foo']);
  });

  describe('on the emulator', () => {
    let cluster: TestCluster;
    beforeEach(async () => (cluster = await startTestCluster()));
    afterEach(() => cluster.stop());

    it('prefers the highest version in discovery, whatever the order of the CRD', async () => {
      expect((await call(cluster.emulator, 'POST', CRDS, gadgets())).status).to.equal(201);
      const group = (await call(cluster.emulator, 'GET', '/apis/example.com')).body as {
        versions: { version: string }[];
        preferredVersion: { version: string };
      };
      expect(group.versions.map(({ version }) => version)).to.deep.equal(['v1', 'v1beta1']);
      expect(group.preferredVersion.version).to.equal('v1');
    });

    it('stores an object written at an older version as None conversion does: relabelled, pruned, defaulted', async () => {
      expect((await call(cluster.emulator, 'POST', CRDS, gadgets())).status).to.equal(201);
      const written = await call(cluster.emulator, 'POST', '/apis/example.com/v1beta1/namespaces/default/gadgets', {
        apiVersion: 'example.com/v1beta1',
        kind: 'Gadget',
        metadata: { name: 'g' },
        spec: { ref: { apiVersion: 'example.com/v1', name: 'other' } },
      });
      expect(written.status).to.equal(201);
      // The answer is the stored object as v1beta1 serves it: what v1 did not declare is gone.
      expect((written.body as { spec: unknown }).spec).to.deep.equal({ ref: { name: 'other' }, replicas: 1 });
      const read = (await call(cluster.emulator, 'GET', '/apis/example.com/v1/namespaces/default/gadgets/g')).body as {
        apiVersion: string;
        spec: unknown;
      };
      expect(read.apiVersion).to.equal('example.com/v1');
      expect(read.spec).to.deep.equal({ ref: { name: 'other' }, replicas: 1 });
    });

    it('answers a conversion webhook whose Service is absent as kube-apiserver: storage version only', async () => {
      const conversion = {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: 'capa-system', name: 'capa-webhook-service', path: '/convert' } },
        },
      };
      const created = await call(cluster.emulator, 'POST', CRDS, gadgets(conversion));
      expect(created.status).to.equal(201);
      // The Service's port defaults to 443, as kube-apiserver defaults it.
      expect((created.body as { spec: { conversion: unknown } }).spec.conversion).to.deep.equal({
        ...conversion,
        webhook: {
          ...conversion.webhook,
          clientConfig: { service: { ...conversion.webhook.clientConfig.service, port: 443 } },
        },
      });
      const create = (version: string, name: string) =>
        call(cluster.emulator, 'POST', `/apis/example.com/${version}/namespaces/default/gadgets`, {
          apiVersion: `example.com/${version}`,
          kind: 'Gadget',
          metadata: { name },
          spec: {},
        });
      expect((await create('v1', 'g1')).status).to.equal(201);
      const converted = await create('v1beta1', 'g2');
      expect(converted.status).to.equal(500);
      expect(converted.body).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'conversion webhook for example.com/v1beta1, Kind=Gadget failed: Post "https://capa-webhook-service.capa-system.svc:443/convert?timeout=30s": service "capa-webhook-service" not found',
        code: 500,
      });
    });
  });
});
