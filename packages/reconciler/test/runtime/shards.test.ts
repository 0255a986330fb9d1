import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { KeymasterMetrics } from '../../src/metrics.js';
import { ShardOwner, type ShardOwnerOptions } from '../../src/runtime/shards.js';
import { FakeClock } from '../fake-clock.js';

const NAMESPACE = 'keymaster-system';
const SHARDS = 4;
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

describe('ShardOwner against the kube-emulator, on a fake clock', function () {
  this.timeout(30_000);
  let kube: KubeEmulator;
  let kubeConfig: KubeConfig;
  let leases: CoordinationV1Api;
  let clock: FakeClock;
  let prefix: string;
  let test = 0;

  before(async () => {
    kube = await startKubeEmulator();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    leases = kubeConfig.makeApiClient(CoordinationV1Api);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  });
  beforeEach(() => {
    clock = new FakeClock();
    test += 1;
    prefix = `group-${test}`;
  });
  afterEach(() => kube.faults.clear());
  after(() => kube.stop());

  const owner = (identity: string, metrics?: KeymasterMetrics, hooks: Partial<ShardOwnerOptions> = {}) =>
    new ShardOwner({
      kubeConfig,
      namespace: NAMESPACE,
      prefix,
      shards: SHARDS,
      ...hooks,
      identity,
      clock,
      ...TIMING,
      ...(metrics ? { observer: metrics.shardObserver() } : {}),
    });
  const holder = async (shard: number) =>
    (await leases.readNamespacedLease({ namespace: NAMESPACE, name: `${prefix}-shard-${shard}` })).spec?.holderIdentity;
  /** No shard is reconciled by two replicas. */
  const expectDisjoint = (...owners: ShardOwner[]) => {
    const all = owners.flatMap((made) => made.owned);
    expect(new Set(all).size, `owned: ${owners.map((made) => made.owned.join(',')).join(' | ')}`).to.equal(all.length);
  };
  /** One round of each replica, then a retry period later. */
  const round = async (...owners: ShardOwner[]) => {
    for (const made of owners) {
      await made.tick();
      expectDisjoint(...owners);
    }
    clock.advance(TIMING.retryPeriodMs);
  };

  it('a lone replica takes every shard; a second one gets an even share, no shard ever owned by both', async () => {
    const metrics = new KeymasterMetrics();
    const { registry } = metrics;
    const a = owner('replica-a', metrics);
    const b = owner('replica-b');
    await round(a);
    expect(a.owned).to.deep.equal([0, 1, 2, 3]);
    for (let index = 0; index < 4; index += 1) await round(b, a);
    // Sorted by name, a prefers the shards i % 2 == 0, b the others.
    expect(a.owned).to.deep.equal([0, 2]);
    expect(b.owned).to.deep.equal([1, 3]);
    expect(await holder(1)).to.equal('replica-b');
    const owned = await registry.getSingleMetricAsString('keymaster_shard_owned');
    expect(owned).to.include('keymaster_shard_owned{shard="0"} 1').and.to.include('keymaster_shard_owned{shard="1"} 0');
    const handovers = await registry.getSingleMetricAsString('keymaster_shard_handovers_total');
    expect(handovers).to.include('{shard="1",event="released"} 1').and.to.include('{shard="3",event="acquired"} 1');
  });

  it('stops reconciling a shard at its renew deadline, before the others may take it over after the lease duration', async () => {
    const a = owner('replica-a');
    const b = owner('replica-b');
    for (let index = 0; index < 4; index += 1) await round(a, b);
    expect(b.owned).to.deep.equal([1, 3]);
    // b freezes (a partition, a stuck event loop): it renews no more, its timers still run.
    const lastRenew = clock.now() - TIMING.retryPeriodMs;
    let bStopped: number | undefined;
    let aTook: number | undefined;
    while (aTook === undefined) {
      await a.tick();
      if (bStopped === undefined && b.owned.length === 0) bStopped = clock.now();
      if (a.owned.includes(1) && a.owned.includes(3)) aTook = clock.now();
      else expect(a.owned).to.deep.equal([0, 2]);
      expectDisjoint(a, b);
      clock.advance(TIMING.retryPeriodMs / 5);
      expect(clock.now() - lastRenew, 'taking over').to.be.lessThan(TIMING.leaseDurationMs + 3 * TIMING.retryPeriodMs);
    }
    expect(bStopped! - lastRenew).to.be.at.most(TIMING.renewDeadlineMs);
    expect(aTook - lastRenew).to.be.at.least(TIMING.leaseDurationMs);
  });

  it('gives up a shard at once but releases its Lease only when the reconciles in hand are done', async () => {
    const a = owner('replica-a');
    const b = owner('replica-b');
    let finish: () => void = () => undefined;
    const reconciled: string[] = [];
    const reconcile = a.guard(
      async (request) => {
        reconciled.push(request.name);
        if (request.name === '3') await new Promise<void>((resolve) => (finish = resolve));
        return undefined;
      },
      (request) => Number(request.name),
    );
    await round(a);
    const inHand = reconcile({ name: '3' }, { reconcileId: '1' });
    await round(b, a);
    expect(a.owned, 'given up: shard 3 is preferred by b').to.deep.equal([0, 2]);
    await reconcile({ name: '3' }, { reconcileId: '2' });
    await reconcile({ name: '2' }, { reconcileId: '3' });
    expect(reconciled, 'no new reconcile of a shard given up').to.deep.equal(['3', '2']);
    for (let index = 0; index < 3; index += 1) await round(a, b);
    expect(await holder(3), 'kept while a reconcile is in hand').to.equal('replica-a');
    expect(b.owned).to.deep.equal([1]);
    finish();
    await inHand;
    await round(a, b);
    expect(b.owned).to.deep.equal([1, 3]);
  });

  it('drops the work of a shard given up that runs outside the reconciles, and keeps its Lease while it runs', async () => {
    const busy = new Set([3]);
    const givenUp: number[] = [];
    const a = owner('replica-a', undefined, {
      busy: (shard) => busy.has(shard),
      onGivenUp: (shard) => givenUp.push(shard),
    });
    const b = owner('replica-b');
    await round(a);
    for (let index = 0; index < 3; index += 1) await round(b, a);
    expect(givenUp.sort()).to.deep.equal([1, 3]);
    expect(await holder(3), 'kept while its work runs').to.equal('replica-a');
    expect(b.owned).to.deep.equal([1]);
    busy.clear();
    await round(a, b);
    expect(b.owned).to.deep.equal([1, 3]);
  });

  it('runs the reconcile of an object of no shard (gone from the cache: it only forgets it) wherever asked', async () => {
    const a = owner('replica-a');
    let ran = 0;
    const reconcile = a.guard(
      () => {
        ran += 1;
        return Promise.resolve(undefined);
      },
      () => undefined,
    );
    await reconcile({ namespace: 'team', name: 'gone' }, { reconcileId: '1' });
    expect([ran, a.owns(undefined), a.owns(0)]).to.deep.equal([1, true, false]);
  });

  it('stops reconciling when renewals fail for the renew deadline', async () => {
    const metrics = new KeymasterMetrics();
    const { registry } = metrics;
    const a = owner('replica-a', metrics);
    await round(a);
    kube.faults.add({
      verb: 'update',
      resource: 'leases.coordination.k8s.io',
      error: { code: 500, message: 'etcd is down' },
      rate: 1,
    });
    // Acquired at 0: every renewal from then on fails, up to the deadline (2000) and not beyond.
    while (clock.now() + TIMING.retryPeriodMs < TIMING.renewDeadlineMs) await round(a);
    expect(a.owned).to.deep.equal([0, 1, 2, 3]);
    await round(a);
    expect(clock.now()).to.equal(TIMING.renewDeadlineMs);
    expect(a.owned).to.deep.equal([]);
    expect(await registry.getSingleMetricAsString('keymaster_shard_handovers_total')).to.include(
      '{shard="0",event="lost"} 1',
    );
  });

  it('takes no shard while a replica with another --shards lives (their shards overlap), then takes them all', async () => {
    const a = owner('replica-a');
    const b = owner('replica-b', undefined, { shards: 6 });
    await round(a);
    for (let index = 0; index < 4; index += 1) await round(a, b);
    expect(a.owned, 'the older count keeps what it holds').to.deep.equal([0, 1, 2, 3]);
    expect(b.owned).to.deep.equal([]);
    await a.stop();
    await round(b);
    expect(b.owned).to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('stopped, releases its shards and its replica Lease: the others take them over at once', async () => {
    const a = owner('replica-a');
    const b = owner('replica-b');
    for (let index = 0; index < 4; index += 1) await round(a, b);
    await b.stop();
    expect(b.owned).to.deep.equal([]);
    await a.tick();
    expect(a.owned).to.deep.equal([0, 1, 2, 3]);
    const group = await leases.listNamespacedLease({
      namespace: NAMESPACE,
      labelSelector: `keymaster.dev/shard-group=${prefix}`,
    });
    expect(group.items.map((lease) => lease.spec?.holderIdentity).sort()).to.deep.equal([
      'replica-a',
      'replica-a',
      'replica-a',
      'replica-a',
      'replica-a',
    ]);
  });
});
