import { expect } from 'chai';
import { EventReason, type AWSCluster } from '@keymaster/api';
import { ApiException, type V1Namespace } from '@kubernetes/client-node';
import type { CapaObject, ClusterAPICluster } from '../../src/adoption/capa-objects.js';
import type { CompanionWrites } from '../../src/adoption/companion-writer.js';
import { adoptedFrom } from '../../src/adoption/index.js';
import { AdoptionReconciler } from '../../src/adoption/reconciler.js';
import { CLUSTER_LABEL_CHARACTERS, tenantObjectAsRead } from '../../src/kube/cache-transforms.js';
import { FakeInformer } from '../support/fake-informer.js';
import { quietLogger } from '../support/quiet-logger.js';
import { RecordingEvents } from '../support/recording-events.js';

const NS = 'payments';
const UID = 'uid-of-prod';
const PAUSED = 'cluster.x-k8s.io/paused';

const adopted = (
  name = NS,
  labels: Record<string, string> = { 'keymaster.dev/adopt': 'cluster-api' },
): V1Namespace => ({
  metadata: { name, labels },
});

function capiCluster(
  spec: ClusterAPICluster['spec'] = { infrastructureRef: { kind: 'AWSCluster', name: 'prod' } },
  metadata: Partial<ClusterAPICluster['metadata']> = {},
): ClusterAPICluster {
  return { metadata: { name: 'prod', namespace: NS, uid: UID, labels: { env: 'prod' }, ...metadata }, spec };
}

const eksCluster = (controlPlane = 'prod-control-plane', metadata: Partial<ClusterAPICluster['metadata']> = {}) =>
  capiCluster(
    {
      infrastructureRef: { kind: 'AWSManagedCluster', name: 'prod' },
      controlPlaneRef: { kind: 'AWSManagedControlPlane', name: controlPlane },
    },
    metadata,
  );

const capa = (name: string, spec: CapaObject['spec'] = {}, annotations?: Record<string, string>): CapaObject => ({
  metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
  spec,
});

interface Write {
  op: 'create' | 'update' | 'delete';
  object: AWSCluster;
}

class RecordingWrites implements CompanionWrites {
  readonly writes: Write[] = [];
  failure: Error | undefined;

  #do(op: Write['op'], object: AWSCluster): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    this.writes.push({ op, object });
    return Promise.resolve();
  }

  create(companion: AWSCluster) {
    return this.#do('create', companion);
  }
  update(_current: AWSCluster, desired: AWSCluster) {
    return this.#do('update', desired);
  }
  delete(companion: AWSCluster) {
    return this.#do('delete', companion);
  }
}

/** The world of one reconcile: the caches as fakes, what it writes and says. */
function world(
  options: {
    clusters?: ClusterAPICluster[];
    namespace?: V1Namespace;
    awsClusters?: CapaObject[];
    managedClusters?: CapaObject[];
    controlPlanes?: CapaObject[];
    companions?: AWSCluster[];
    watched?: (cluster: ClusterAPICluster) => boolean;
  } = {},
) {
  const clusters = new FakeInformer(options.clusters ?? [capiCluster()]);
  const namespaces = new FakeInformer([options.namespace ?? adopted()]);
  const companions = new FakeInformer<AWSCluster>(options.companions ?? []);
  const awsClusters = new FakeInformer(options.awsClusters ?? [capa('prod', { region: 'eu-west-1' })]);
  const managedClusters = new FakeInformer(options.managedClusters ?? [capa('prod')]);
  const controlPlanes = new FakeInformer(
    options.controlPlanes ?? [capa('prod-control-plane', { region: 'us-east-2' })],
  );
  const writes = new RecordingWrites();
  const events = new RecordingEvents();
  const reconciler = new AdoptionReconciler({
    clusters,
    namespaces,
    companions,
    capa: {
      awsCluster: (name, namespace) => awsClusters.get(name, namespace),
      managedCluster: (name, namespace) => managedClusters.get(name, namespace),
      controlPlane: (name, namespace) => controlPlanes.get(name, namespace),
    },
    watched: options.watched ?? (() => true),
    writes,
    events,
    logger: quietLogger(),
  });
  const reconcile = () => reconciler.reconcile({ namespace: NS, name: 'prod' });
  return { reconcile, writes, events, companions, clusters, namespaces };
}

/** The companion as the API server would keep it, and the cache read it back. */
const asStored = (companion: AWSCluster): AWSCluster =>
  tenantObjectAsRead(
    [PAUSED],
    CLUSTER_LABEL_CHARACTERS,
  )({
    ...companion,
    metadata: { ...companion.metadata, uid: 'companion-uid', resourceVersion: '7' },
  });

/** The companion the world's first reconcile creates. */
async function created(w: ReturnType<typeof world>): Promise<AWSCluster> {
  await w.reconcile();
  expect(w.writes.writes.map(({ op }) => op)).to.deep.equal(['create']);
  return w.writes.writes[0]!.object;
}

/** A hand-made Keymaster AWSCluster of the Cluster's name. */
const handMade = (): AWSCluster => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCluster',
  metadata: { name: 'prod', namespace: NS, uid: 'hand-made' },
  spec: { region: 'eu-west-1' },
});

describe('adoption reconcile', () => {
  it('creates the companion of a CAPA AWSCluster: region, name, CAPA identity, origin, owner, labels', async () => {
    const companion = await created(
      world({ awsClusters: [capa('prod', { region: 'eu-west-1', additionalTags: { 'cost-center': '42' } })] }),
    );
    expect(companion.metadata).to.deep.equal({
      name: 'prod',
      namespace: NS,
      labels: { env: 'prod' },
      ownerReferences: [
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'prod', uid: UID, controller: true },
      ],
    });
    expect(companion.spec).to.deep.equal({
      region: 'eu-west-1',
      clusterName: 'prod',
      identityRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'AWSClusterControllerIdentity',
        name: 'default',
      },
      clusterAPI: {
        clusterRef: { name: 'prod' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSCluster', name: 'prod' },
        additionalTags: { 'cost-center': '42' },
      },
    });
  });

  it("keeps CAPA's identityRef, in CAPA's group", async () => {
    const identityRef = { kind: 'AWSClusterRoleIdentity', name: 'payments' };
    const companion = await created(world({ awsClusters: [capa('prod', { region: 'eu-west-1', identityRef })] }));
    expect(companion.spec.identityRef).to.deep.equal({ apiGroup: 'infrastructure.cluster.x-k8s.io', ...identityRef });
  });

  it('writes nothing on a quiet resync', async () => {
    const w = world();
    const companion = await created(w);
    w.companions.put(asStored(companion));
    await w.reconcile();
    await w.reconcile();
    expect(w.writes.writes).to.have.length(1);
  });

  it('keeps labels past what the cache keeps without writing on every resync', async () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`label-${i}`, 'x'.repeat(30)]));
    const w = world({ clusters: [capiCluster(undefined, { labels: many })] });
    w.companions.put(asStored(await created(w)));
    await w.reconcile();
    expect(w.writes.writes).to.have.length(1);
  });

  for (const [edit, change] of [
    ['spec.additionalTags added', (c: AWSCluster) => ({ ...c, spec: { ...c.spec, additionalTags: { owner: 'me' } } })],
    [
      'identityRef replaced',
      (c: AWSCluster) => ({
        ...c,
        spec: { ...c.spec, identityRef: { kind: 'AWSClusterStaticIdentity' as const, name: 'other' } },
      }),
    ],
    ['a label changed', (c: AWSCluster) => ({ ...c, metadata: { ...c.metadata, labels: { env: 'dev' } } })],
    [
      'the pause annotation added',
      (c: AWSCluster) => ({ ...c, metadata: { ...c.metadata, annotations: { [PAUSED]: 'true' } } }),
    ],
  ] as const) {
    it(`writes back a companion edited by someone else: ${edit}`, async () => {
      const w = world();
      const companion = await created(w);
      w.companions.put(change(asStored(companion)));
      await w.reconcile();
      expect(w.writes.writes.map(({ op }) => op)).to.deep.equal(['create', 'update']);
      expect(w.writes.writes[1]!.object).to.deep.equal(companion);
    });
  }

  it("updates the companion when CAPA's object changes", async () => {
    const w = world();
    w.companions.put(asStored(await created(w)));
    const moved = world({
      awsClusters: [capa('prod', { region: 'eu-central-1', additionalTags: { team: 'payments' } })],
      companions: w.companions.list() as AWSCluster[],
    });
    await moved.reconcile();
    expect(moved.writes.writes.map(({ op }) => op)).to.deep.equal(['update']);
    expect(moved.writes.writes[0]!.object.spec.region).to.equal('eu-central-1');
    expect(moved.writes.writes[0]!.object.spec.clusterAPI?.additionalTags).to.deep.equal({ team: 'payments' });
  });

  it('leaves a hand-made AWSCluster of the name alone, and says so on the Cluster once', async () => {
    const w = world({ companions: [handMade()] });
    await w.reconcile();
    await w.reconcile();
    expect(w.writes.writes).to.deep.equal([]);
    expect(w.events.reasons).to.deep.equal([`Normal ${EventReason.HandMadeAWSCluster}`]);
    expect(w.events.recorded[0]!.target).to.equal('Cluster/prod');
  });

  it('leaves a hand-made AWSCluster owned by the Cluster but without spec.clusterAPI alone', async () => {
    const owned = handMade();
    owned.metadata.ownerReferences = [
      { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'prod', uid: UID },
    ];
    const w = world({ companions: [owned] });
    await w.reconcile();
    expect(w.writes.writes).to.deep.equal([]);
  });

  it('deletes the companion of an earlier Cluster of the name (another uid)', async () => {
    const w = world();
    const stale = asStored(await created(w));
    stale.metadata.ownerReferences = [{ ...stale.metadata.ownerReferences![0]!, uid: 'earlier' }];
    const again = world({ companions: [stale] });
    await again.reconcile();
    expect(again.writes.writes.map(({ op, object }) => [op, object.metadata.uid])).to.deep.equal([
      ['delete', 'companion-uid'],
    ]);
  });

  describe('EKS', () => {
    it("names the cluster as CAPA's webhook does: <namespace>_<control plane name>, dots made _", async () => {
      const companion = await created(
        world({
          clusters: [eksCluster('prod.control-plane')],
          controlPlanes: [capa('prod.control-plane', { region: 'us-east-2' })],
        }),
      );
      expect(companion.spec.clusterName).to.equal('payments_prod_control-plane');
      expect(companion.spec.region).to.equal('us-east-2');
      expect(companion.spec.clusterAPI?.infrastructureRef).to.deep.equal({
        apiGroup: 'controlplane.cluster.x-k8s.io',
        kind: 'AWSManagedControlPlane',
        name: 'prod.control-plane',
      });
    });

    it('keeps spec.eksClusterName when set, and the control plane identity', async () => {
      const identityRef = { kind: 'AWSClusterStaticIdentity', name: 'eks-keys' };
      const companion = await created(
        world({
          clusters: [eksCluster()],
          controlPlanes: [
            capa('prod-control-plane', { region: 'us-east-2', eksClusterName: 'Payments_Prod', identityRef }),
          ],
        }),
      );
      expect(companion.spec.clusterName).to.equal('Payments_Prod');
      expect(companion.spec.identityRef).to.deep.equal({ apiGroup: 'infrastructure.cluster.x-k8s.io', ...identityRef });
    });

    it('waits for the control plane CAPA names', async () => {
      const w = world({ clusters: [eksCluster()], controlPlanes: [] });
      await w.reconcile();
      expect(w.writes.writes).to.deep.equal([]);
      expect(w.events.reasons).to.deep.equal([]);
    });
  });

  describe('pause', () => {
    const sources: [string, Parameters<typeof world>[0]][] = [
      [
        "the Cluster's spec.paused",
        { clusters: [capiCluster({ paused: true, infrastructureRef: { kind: 'AWSCluster', name: 'prod' } })] },
      ],
      ["the Cluster's annotation", { clusters: [capiCluster(undefined, { annotations: { [PAUSED]: '' } })] }],
      ["CAPA's AWSCluster annotation", { awsClusters: [capa('prod', { region: 'eu-west-1' }, { [PAUSED]: 'true' })] }],
      [
        "CAPA's AWSManagedCluster annotation",
        { clusters: [eksCluster()], managedClusters: [capa('prod', {}, { [PAUSED]: 'true' })] },
      ],
      [
        "CAPA's AWSManagedControlPlane annotation",
        {
          clusters: [eksCluster()],
          controlPlanes: [capa('prod-control-plane', { region: 'us-east-2' }, { [PAUSED]: 'true' })],
        },
      ],
    ];
    for (const [source, given] of sources) {
      it(`pauses the companion for ${source}, and unpauses it after`, async () => {
        const paused = await created(world(given));
        expect(paused.metadata.annotations).to.deep.equal({ [PAUSED]: 'true' });
        const unpaused = world({
          ...(given?.clusters?.[0]?.spec?.controlPlaneRef ? { clusters: [eksCluster()] } : {}),
          companions: [asStored(paused)],
        });
        await unpaused.reconcile();
        expect(unpaused.writes.writes.map(({ op }) => op)).to.deep.equal(['update']);
        expect(unpaused.writes.writes[0]!.object.metadata.annotations).to.equal(undefined);
      });
    }
  });

  describe('release', () => {
    it('deletes the companion when the Cluster is gone', async () => {
      const w = world();
      const companion = asStored(await created(w));
      const gone = world({ clusters: [], companions: [companion] });
      await gone.reconcile();
      expect(gone.writes.writes.map(({ op, object }) => [op, object.metadata.uid])).to.deep.equal([
        ['delete', 'companion-uid'],
      ]);
    });

    it('deletes the companion when the Cluster is being deleted', async () => {
      const w = world();
      const companion = asStored(await created(w));
      const leaving = world({
        clusters: [capiCluster(undefined, { deletionTimestamp: '2026-01-01T00:00:00Z' })],
        companions: [companion],
      });
      await leaving.reconcile();
      expect(leaving.writes.writes.map(({ op }) => op)).to.deep.equal(['delete']);
    });

    it('deletes the companion when the namespace loses the adopt label, and makes none there', async () => {
      const w = world();
      const companion = asStored(await created(w));
      const unlabelled = world({ namespace: adopted(NS, { 'keymaster.dev/adopt': 'no' }), companions: [companion] });
      await unlabelled.reconcile();
      expect(unlabelled.writes.writes.map(({ op }) => op)).to.deep.equal(['delete']);
      const fresh = world({ namespace: adopted(NS, {}) });
      await fresh.reconcile();
      expect(fresh.writes.writes).to.deep.equal([]);
    });

    it('never deletes a hand-made AWSCluster, Cluster or not', async () => {
      const w = world({ clusters: [], companions: [handMade()] });
      await w.reconcile();
      expect(w.writes.writes).to.deep.equal([]);
    });

    it('deletes a companion once: not again while it is being deleted', async () => {
      const w = world();
      const companion = asStored(await created(w));
      companion.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      const gone = world({ clusters: [], companions: [companion] });
      await gone.reconcile();
      expect(gone.writes.writes).to.deep.equal([]);
    });
  });

  it('ignores a Cluster whose infrastructure is not CAPA’s', async () => {
    for (const infrastructureRef of [
      { kind: 'DockerCluster', name: 'prod' },
      { apiGroup: 'infrastructure.example.com', kind: 'AWSCluster', name: 'prod' },
      { kind: 'AWSManagedCluster', name: 'prod' },
    ]) {
      const w = world({ clusters: [capiCluster({ infrastructureRef })] });
      await w.reconcile();
      expect(w.writes.writes, JSON.stringify(infrastructureRef)).to.deep.equal([]);
    }
  });

  it('follows no Cluster outside --watch-namespace and --watch-filter, and releases its companion', async () => {
    const companion = asStored(await created(world()));
    const outside = world({ companions: [companion], watched: () => false });
    await outside.reconcile();
    expect(outside.writes.writes.map(({ op }) => op)).to.deep.equal(['delete']);
    const fresh = world({ watched: () => false });
    await fresh.reconcile();
    expect(fresh.writes.writes).to.deep.equal([]);
  });

  it('labels a topology Cluster with its ClusterClass, and drops a class label the Cluster claims itself', async () => {
    const topology = await created(
      world({
        clusters: [
          capiCluster({
            infrastructureRef: { kind: 'AWSCluster', name: 'prod' },
            topology: { classRef: { name: 'multi-tenancy' } },
          }),
        ],
      }),
    );
    expect(topology.metadata.labels).to.deep.equal({ env: 'prod', 'keymaster.dev/cluster-class': 'multi-tenancy' });
    const claimed = await created(
      world({ clusters: [capiCluster(undefined, { labels: { 'keymaster.dev/cluster-class': 'gold' } })] }),
    );
    expect(claimed.metadata.labels).to.deep.equal({});
  });

  it('says once on the Cluster when the schema refuses the companion, and does not fail the reconcile', async () => {
    const w = world();
    const message = 'spec.clusterName: Invalid value: "string": clusterName is immutable';
    w.writes.failure = new ApiException(422, 'invalid', JSON.stringify({ kind: 'Status', code: 422, message }), {});
    await w.reconcile();
    await w.reconcile();
    expect(w.events.reasons).to.deep.equal([`Warning ${EventReason.CompanionRefused}`]);
    expect(w.events.recorded[0]!.message).to.include('clusterName is immutable');
  });

  it('fails the reconcile on any other write failure (retried)', async () => {
    const w = world();
    w.writes.failure = new ApiException(409, 'conflict', '{}', {});
    let failed: unknown;
    await w.reconcile().catch((error: unknown) => (failed = error));
    expect(failed).to.be.instanceOf(ApiException);
  });

  it("says when CAPA's object names no region", async () => {
    const w = world({ awsClusters: [capa('prod')] });
    await w.reconcile();
    expect(w.writes.writes).to.deep.equal([]);
    expect(w.events.reasons).to.deep.equal([`Warning ${EventReason.RegionMissing}`]);
  });
});

describe('adoptedFrom', () => {
  async function companionOf() {
    const w = world();
    return { w, companion: asStored(await created(w)) };
  }

  it('is the Cluster that owns a companion in an adopted namespace', async () => {
    const { w, companion } = await companionOf();
    expect(adoptedFrom(companion, w)?.metadata.uid).to.equal(UID);
  });

  it('is none with --adopt-cluster-api off, in an unlabelled namespace, or for a forged origin', async () => {
    const { w, companion } = await companionOf();
    expect(adoptedFrom(companion, undefined)).to.equal(undefined);
    w.namespaces.put(adopted(NS, {}));
    expect(adoptedFrom(companion, w), 'unlabelled').to.equal(undefined);
    w.namespaces.put(adopted());
    const forged: AWSCluster = { ...handMade(), spec: { ...handMade().spec, clusterAPI: companion.spec.clusterAPI! } };
    expect(adoptedFrom(forged, w), 'no owner').to.equal(undefined);
    const otherUid = {
      ...companion,
      metadata: { ...companion.metadata, ownerReferences: [{ ...companion.metadata.ownerReferences![0]!, uid: 'x' }] },
    };
    expect(adoptedFrom(otherUid, w), 'another uid').to.equal(undefined);
    const renamed = { ...companion, metadata: { ...companion.metadata, name: 'other' } };
    expect(adoptedFrom(renamed, w), 'another name').to.equal(undefined);
  });
});
