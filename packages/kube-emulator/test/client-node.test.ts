import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from './helpers/emulator.js';
import { failure } from './helpers/failure.js';

const GROUP = 'infrastructure.keymaster.dev';
const VERSION = 'v1beta1';

interface Cluster extends KubernetesObject {
  spec: { region: string; identityRef?: { kind: string; name: string } };
  status?: { conditions?: { type: string; status: string }[]; accountID?: string };
}

const awsCluster = (name: string, region = 'eu-west-1'): Cluster => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'AWSCluster',
  metadata: { name },
  spec: { region, identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant' } },
});

const eventually = async (check: () => boolean, what: string): Promise<void> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('@kubernetes/client-node 1.4 against the emulator', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;

  before(async () => {
    cluster = await startTestCluster({ watchHistory: 50 });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    await core.createNamespace({ body: { metadata: { name: 'apps' } } });
  });
  after(() => cluster.stop());

  it('serves typed core APIs: secrets fold stringData, configmaps list by label', async () => {
    const secret = await core.createNamespacedSecret({
      namespace: 'apps',
      body: { metadata: { name: 'creds' }, stringData: { user: 'alice' } },
    });
    expect(secret.data).to.deep.equal({ user: Buffer.from('alice').toString('base64') });
    expect(secret.stringData).to.equal(undefined);
    expect(secret.type).to.equal('Opaque');
    await core.createNamespacedConfigMap({
      namespace: 'apps',
      body: { metadata: { name: 'a', labels: { tier: 'web' } }, data: { k: 'v' } },
    });
    await core.createNamespacedConfigMap({
      namespace: 'apps',
      body: { metadata: { name: 'b', labels: { tier: 'db' } } },
    });
    const web = await core.listNamespacedConfigMap({ namespace: 'apps', labelSelector: 'tier in (web)' });
    expect(web.items.map((item) => item.metadata?.name)).to.deep.equal(['a']);
    const account = await core.createNamespacedServiceAccount({
      namespace: 'apps',
      body: { metadata: { name: 'robot' } },
    });
    expect(account.metadata?.uid).to.be.a('string');
  });

  it('answers 404 NotFound, 409 AlreadyExists and 409 Conflict with Status bodies', async () => {
    const missing = await failure(core.readNamespacedSecret({ namespace: 'apps', name: 'nope' }));
    expect(missing.code).to.equal(404);
    expect(missing.status).to.include({ kind: 'Status', reason: 'NotFound', message: 'secrets "nope" not found' });
    expect(missing.status.details).to.deep.equal({ name: 'nope', kind: 'secrets' });
    const duplicate = await failure(
      core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: 'a' } } }),
    );
    expect(duplicate.code).to.equal(409);
    expect(duplicate.status).to.include({ reason: 'AlreadyExists', message: 'configmaps "a" already exists' });
    const current = await core.readNamespacedConfigMap({ namespace: 'apps', name: 'a' });
    await core.replaceNamespacedConfigMap({
      namespace: 'apps',
      name: 'a',
      body: { metadata: current.metadata, data: { k: 'v2' } },
    });
    const stale = await failure(
      core.replaceNamespacedConfigMap({
        namespace: 'apps',
        name: 'a',
        body: { metadata: current.metadata, data: { k: 'v3' } },
      }),
    );
    expect(stale.code).to.equal(409);
    expect(stale.status.reason).to.equal('Conflict');
    expect(stale.status.message).to.contain('the object has been modified');
  });

  it('keeps one monotonic resourceVersion across resources', async () => {
    const first = await core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: 'rv1' } } });
    const second = await core.createNamespacedSecret({ namespace: 'apps', body: { metadata: { name: 'rv2' } } });
    expect(Number(second.metadata?.resourceVersion)).to.be.greaterThan(Number(first.metadata?.resourceVersion));
  });

  it('serves the same Event through core/v1 and events.k8s.io/v1', async () => {
    const events = cluster.kubeConfig.makeApiClient(EventsV1Api);
    await events.createNamespacedEvent({
      namespace: 'apps',
      body: {
        metadata: { name: 'e1' },
        // client-node writes a Date with milliseconds, which kube-apiserver refuses for a MicroTime
        // (400, as the emulator answers): the six fractional digits it wants go in as text.
        eventTime: '2024-01-01T00:00:00.000000Z' as unknown as Date,
        reason: 'Reconciled',
        note: 'all good',
        type: 'Normal',
        action: 'Reconcile',
        reportingController: 'keymaster',
        reportingInstance: 'keymaster-0',
        regarding: { kind: 'AWSCluster', name: 'c1', namespace: 'apps' },
      },
    });
    const seen = await core.readNamespacedEvent({ namespace: 'apps', name: 'e1' });
    expect(seen.message).to.equal('all good');
    expect(seen.involvedObject.name).to.equal('c1');
    expect(seen.reportingComponent).to.equal('keymaster');
    const listed = await core.listNamespacedEvent({ namespace: 'apps', fieldSelector: 'involvedObject.name=c1' });
    expect(listed.items).to.have.length(1);
  });

  it('serves coordination.k8s.io Leases', async () => {
    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({
      namespace: 'apps',
      body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'pod-a', leaseDurationSeconds: 15 } },
    });
    lease.spec!.holderIdentity = 'pod-b';
    const renewed = await leases.replaceNamespacedLease({ namespace: 'apps', name: 'leader', body: lease });
    expect(renewed.spec?.holderIdentity).to.equal('pod-b');
  });

  it('serves custom objects with a status subresource, defaults and generation', async () => {
    const mergePatch = async (
      method: 'patchNamespacedCustomObject' | 'patchNamespacedCustomObjectStatus',
      body: object,
    ) =>
      (await custom[method](
        { group: GROUP, version: VERSION, namespace: 'apps', plural: 'awsclusters', name: 'c1', body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as Cluster;
    const created = (await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: 'apps',
      plural: 'awsclusters',
      body: { ...awsCluster('c1'), status: { accountID: '123456789012' } },
    })) as Cluster;
    expect(created.status).to.equal(undefined);
    expect(created.metadata?.generation).to.equal(1);
    const status = await mergePatch('patchNamespacedCustomObjectStatus', {
      status: { accountID: '123456789012' },
      spec: { region: 'us-east-1' },
    });
    expect(status.status?.accountID).to.equal('123456789012');
    expect(status.spec.region).to.equal('eu-west-1');
    expect(status.metadata?.generation).to.equal(1);
    const spec = await mergePatch('patchNamespacedCustomObject', {
      spec: { region: 'us-east-1' },
      status: { accountID: '000000000000' },
    });
    expect(spec.metadata?.generation).to.equal(2);
    expect(spec.status?.accountID).to.equal('123456789012');
    const read = (await custom.getNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace: 'apps',
      plural: 'awsclusters',
      name: 'c1',
    })) as Cluster;
    expect(read.spec.region).to.equal('us-east-1');
  });

  it('rejects invalid custom objects with 422 and field causes', async () => {
    const invalid = await failure(
      custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'apps',
        plural: 'awsclusters',
        body: awsCluster('bad', 'mars'),
      }),
    );
    expect(invalid.code).to.equal(422);
    expect(invalid.status.reason).to.equal('Invalid');
    expect(invalid.status.details).to.nested.include({
      'causes[0].field': 'spec.region',
      'causes[0].reason': 'FieldValueInvalid',
      kind: 'AWSCluster',
      group: GROUP,
    });
    expect(invalid.status.message).to.match(
      /^AWSCluster\.infrastructure\.keymaster\.dev "bad" is invalid: spec\.region: Invalid value: "mars"/,
    );
  });

  it('works through KubernetesObjectApi', async () => {
    const objects = KubernetesObjectApi.makeApiClient(cluster.kubeConfig);
    const created = await objects.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'generic', namespace: 'apps' },
      data: { a: '1' },
    });
    expect(created).to.have.nested.property('metadata.uid').that.is.a('string');
    const patched = await objects.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'generic', namespace: 'apps' },
        data: { b: '2' },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.StrategicMergePatch,
    );
    expect(patched.data).to.deep.equal({ a: '1', b: '2' });
    const applied = await objects.patch(
      {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AWSCluster',
        metadata: { name: 'applied', namespace: 'apps' },
        spec: { region: 'eu-west-2' },
      } as KubernetesObject,
      undefined,
      undefined,
      'tests',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(applied.metadata?.managedFields?.[0]?.manager).to.equal('tests');
    const list = await objects.list(`${GROUP}/${VERSION}`, 'AWSCluster', 'apps');
    expect(list.items.map((item) => item.metadata?.name)).to.include.members(['applied', 'c1']);
    await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: 'apps' } });
    expect(
      (
        await failure(
          objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: 'apps' } }),
        )
      ).code,
    ).to.equal(404);
  });

  it('keeps an informer in sync, across dropped watches and expired resourceVersions', async () => {
    const path = `/apis/${GROUP}/${VERSION}/namespaces/apps/awsclusters`;
    const informer = makeInformer(
      cluster.kubeConfig,
      path,
      () =>
        custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: 'apps',
          plural: 'awsclusters',
        }) as never,
    );
    const added: string[] = [];
    const deleted: string[] = [];
    informer.on('add', (object) => added.push(object.metadata!.name!));
    informer.on('delete', (object) => deleted.push(object.metadata!.name!));
    await informer.start();
    try {
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'apps',
        plural: 'awsclusters',
        body: awsCluster('watched'),
      });
      await eventually(() => added.includes('watched'), 'the informer to see the new object');
      expect(cluster.emulator.faults.dropWatchesNow('awsclusters.infrastructure.keymaster.dev')).to.equal(1);
      await custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'apps',
        plural: 'awsclusters',
        name: 'watched',
      });
      await eventually(
        () => deleted.includes('watched'),
        'the informer to see the deletion after its watch was dropped',
      );
      // 60 writes push the informer's resourceVersion out of the 50 kept changes: it gets 410 and relists.
      for (let index = 0; index < 60; index++)
        await core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: `churn-${index}` } } });
      cluster.emulator.faults.dropWatchesNow('awsclusters.infrastructure.keymaster.dev');
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'apps',
        plural: 'awsclusters',
        body: awsCluster('after-expiry'),
      });
      await eventually(
        () => informer.get('after-expiry', 'apps') !== undefined,
        'the informer to relist after 410 Gone',
      );
    } finally {
      await informer.stop();
    }
  });

  it('streams watch events with Watch', async () => {
    const events: string[] = [];
    const watch = new Watch(cluster.kubeConfig);
    const list = await core.listNamespacedConfigMap({ namespace: 'apps' });
    const controller = await watch.watch(
      '/api/v1/namespaces/apps/configmaps',
      { resourceVersion: list.metadata?.resourceVersion, labelSelector: 'watch=me' },
      (type, object: V1ConfigMap) => events.push(`${type} ${object.metadata?.name}`),
      () => undefined,
    );
    await core.createNamespacedConfigMap({
      namespace: 'apps',
      body: { metadata: { name: 'w1', labels: { watch: 'me' } } },
    });
    await core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name: 'w2' } } });
    await core.patchNamespacedConfigMap(
      { namespace: 'apps', name: 'w1', body: { metadata: { labels: { watch: 'not' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(() => events.length >= 2, 'two watch events');
    controller.abort();
    expect(events).to.deep.equal(['ADDED w1', 'DELETED w1']);
  });
});
