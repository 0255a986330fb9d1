import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import {
  CLUSTER_LABEL_CHARACTERS,
  namespaceAsRead,
  secretAsRead,
  tenantObjectAsRead,
  withoutUnread,
} from '../../src/kube/cache-transforms.js';
import { KubeWriter } from '../../src/kube/writer.js';

const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' }];

describe('what the informer caches keep', () => {
  it('drops managedFields and the last-applied copy, keeping every other field as it is', () => {
    const spec = { region: 'us-west-2' };
    const status = { conditions: [] };
    const cluster = {
      apiVersion: API_VERSION,
      kind: 'AWSCluster',
      metadata: {
        name: 'prod',
        namespace: 'team-a',
        resourceVersion: '7',
        labels: { team: 'a' },
        annotations: { [LAST_APPLIED]: '{"big":"copy"}', 'cluster.x-k8s.io/paused': '' },
        managedFields,
      },
      spec,
      status,
    };
    const kept = withoutUnread(cluster);
    expect(kept.metadata).to.deep.equal({
      name: 'prod',
      namespace: 'team-a',
      resourceVersion: '7',
      labels: { team: 'a' },
      annotations: { 'cluster.x-k8s.io/paused': '' },
    });
    expect(kept.spec).to.equal(spec);
    expect(kept.status).to.equal(status);
    expect(cluster.metadata.managedFields, 'the object handed in is left as it was').to.equal(managedFields);
  });

  it('drops an annotation map left empty, so that versions with and without kubectl apply compare alike', () => {
    const applied = withoutUnread({ metadata: { name: 'a', annotations: { [LAST_APPLIED]: '{}' } } });
    const created = withoutUnread({ metadata: { name: 'a' } });
    expect(applied).to.deep.equal(created);
  });

  it('keeps of a Secret its keys and ownerReferences, not its labels, annotations (a last-applied copy of the keys) or managedFields', () => {
    const ownerReferences = [{ apiVersion: API_VERSION, kind: 'AWSClusterStaticIdentity', name: 's', uid: 'u' }];
    const data = { AccessKeyID: 'QUtJQQ==' };
    expect(
      secretAsRead({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name: 'keys',
          namespace: 'keymaster-system',
          uid: 'u1',
          resourceVersion: '3',
          labels: { clusterctl: 'move' },
          annotations: { [LAST_APPLIED]: '{"stringData":{"AccessKeyID":"AKIA"}}' },
          ownerReferences,
          managedFields: [],
        },
        data,
      }),
    ).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'keys', namespace: 'keymaster-system', uid: 'u1', resourceVersion: '3', ownerReferences },
      data,
    });
  });

  it("keeps of a tenant's object the annotations read and its labels up to a bound, in key order", () => {
    const object = (labels: Record<string, string>) => ({
      metadata: { name: 'prod', labels, annotations: { 'cluster.x-k8s.io/paused': '', other: 'x'.repeat(1000) } },
    });
    const cluster = tenantObjectAsRead(['cluster.x-k8s.io/paused'], CLUSTER_LABEL_CHARACTERS);
    expect(cluster(object({ pci: 'true', env: 'prod' })).metadata).to.deep.equal({
      name: 'prod',
      labels: { env: 'prod', pci: 'true' },
      annotations: { 'cluster.x-k8s.io/paused': '' },
    });
    // A tenant's flood of labels: those past the bound are left unread, the first ones in key order kept.
    const flood = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`k${String(index).padStart(2, '0')}`, 'v'.repeat(60)]),
    );
    const kept = cluster(object({ ...flood, a: 'first' })).metadata.labels;
    expect(Object.keys(kept)[0]).to.equal('a');
    expect(Object.entries(kept).reduce((sum, [key, value]) => sum + key.length + value.length, 0)).to.be.at.most(
      CLUSTER_LABEL_CHARACTERS,
    );
    expect(Object.keys(kept)).to.have.length.above(20);
    // A request keeps no label at all.
    expect(tenantObjectAsRead([])(object({ env: 'prod' })).metadata).to.deep.equal({ name: 'prod' });
  });

  it('keeps of a Namespace its name, labels and resourceVersion', () => {
    expect(
      namespaceAsRead({
        metadata: {
          name: 'team-a',
          uid: 'u',
          resourceVersion: '9',
          labels: { 'keymaster.dev/tenant': 'a' },
          annotations: { note: 'x' },
          managedFields: [],
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      }),
    ).to.deep.equal({ metadata: { name: 'team-a', resourceVersion: '9', labels: { 'keymaster.dev/tenant': 'a' } } });
  });

  describe('a status written from a cached object, against the kube-emulator', () => {
    let kube: KubeEmulator;
    let custom: CustomObjectsApi;
    let writer: KubeWriter;
    const target = { group: GROUP, version: VERSION, namespace: 'team-a', plural: 'awsclusters', name: 'prod' };

    before(async () => {
      kube = await startKubeEmulator({ crds: CRDS });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(kube.kubeConfig());
      custom = kubeConfig.makeApiClient(CustomObjectsApi);
      writer = new KubeWriter(kubeConfig);
      await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'team-a' } } });
      await custom.createNamespacedCustomObject({
        ...target,
        body: {
          apiVersion: API_VERSION,
          kind: 'AWSCluster',
          metadata: { name: 'prod', namespace: 'team-a', annotations: { [LAST_APPLIED]: '{"kind":"AWSCluster"}' } },
          spec: { region: 'us-west-2' },
        },
        fieldManager: 'kubectl-client-side-apply',
      });
    });
    after(() => kube.stop());

    it('loses nothing on the server: metadata and managedFields are the server’s, the writer gets its status entry', async () => {
      const live = (await custom.getNamespacedCustomObject(target)) as AWSCluster;
      expect((live.metadata as { managedFields?: unknown[] }).managedFields).to.have.length(1);
      const cached = withoutUnread(live);
      await writer.replaceStatus({ ...cached, status: { observedGeneration: 1 } });

      const after = (await custom.getNamespacedCustomObject(target)) as AWSCluster;
      expect(after.status).to.deep.equal({ observedGeneration: 1 });
      expect(after.metadata.annotations).to.deep.equal(live.metadata.annotations);
      expect(after.spec).to.deep.equal(live.spec);
      const { managedFields: owners = [] } = after.metadata as {
        managedFields?: { manager: string; subresource?: string }[];
      };
      const entries = owners.map(({ manager, subresource }) => ({ manager, subresource }));
      expect(entries).to.deep.include({ manager: 'kubectl-client-side-apply', subresource: undefined });
      expect(entries.filter(({ subresource }) => subresource === 'status')).to.have.length(1);
    });
  });
});
