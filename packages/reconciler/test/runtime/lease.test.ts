import { ApiException, CoreV1Api, KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { expired, free, heldBy, Leases } from '../../src/runtime/lease.js';

const NAMESPACE = 'keymaster-system';
const T0 = Date.parse('2026-11-27T12:00:00.123Z');
/** 1.4 s: written as 2 whole seconds, rounded up (to the nearest, 1 s would let others in early). */
const A = { identity: 'replica-a', leaseDurationMs: 1400 };
const B = { identity: 'replica-b', leaseDurationMs: 1400 };

const time = (value: Date | undefined) => value && new Date(value).getTime();
const conflict = (error: unknown) => error instanceof ApiException && error.code === 409;

describe('Leases against the kube-emulator', function () {
  this.timeout(30_000);
  let kube: KubeEmulator;
  let leases: Leases;
  let test = 0;
  let name: string;

  before(async () => {
    kube = await startKubeEmulator();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
    leases = new Leases(kubeConfig, NAMESPACE);
  });
  beforeEach(() => {
    test += 1;
    name = `lease-${test}`;
  });
  after(() => kube.stop());

  const read = async () => (await leases.read(name))!;

  it('creates a Lease that is not there for its holder, with its metadata and MicroTimes kube-apiserver takes', async () => {
    expect(await leases.read(name)).to.equal(undefined);
    // kube-apiserver (and the emulator) refuse times without six fractional digits: the create proves them.
    await leases.hold(name, undefined, A, T0, { labels: { group: 'g' }, annotations: { count: '4' } });
    const created = await read();
    expect(created.metadata).to.deep.include({ labels: { group: 'g' }, annotations: { count: '4' } });
    expect(created.spec).to.include({ holderIdentity: 'replica-a', leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect([time(created.spec?.acquireTime), time(created.spec?.renewTime)]).to.deep.equal([T0, T0]);
    expect((await leases.list('group=g')).map((lease) => lease.metadata?.name)).to.deep.equal([name]);
  });

  it('renews for its holder, keeping acquireTime and transitions; a new holder gets its own and counts one', async () => {
    await leases.hold(name, undefined, A, T0);
    await leases.hold(name, await read(), A, T0 + 1000);
    const renewed = await read();
    expect(renewed.spec).to.include({ holderIdentity: 'replica-a', leaseTransitions: 0 });
    expect([time(renewed.spec?.acquireTime), time(renewed.spec?.renewTime)]).to.deep.equal([T0, T0 + 1000]);
    await leases.hold(name, renewed, B, T0 + 5000);
    const taken = await read();
    expect(taken.spec).to.include({ holderIdentity: 'replica-b', leaseTransitions: 1 });
    expect([time(taken.spec?.acquireTime), time(taken.spec?.renewTime)]).to.deep.equal([T0 + 5000, T0 + 5000]);
  });

  it('lets only one of two writers on the same read win, creating or replacing', async () => {
    /** The identity whose write went through; the other's was refused with a conflict. */
    const winner = async (...writes: [typeof A, Promise<void>][]) => {
      const results = await Promise.allSettled(writes.map(([, write]) => write));
      const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
      expect(refused.map(conflict)).to.deep.equal([true]);
      return writes[results.findIndex(({ status }) => status === 'fulfilled')]![0].identity;
    };
    const created = await winner([A, leases.hold(name, undefined, A, T0)], [B, leases.hold(name, undefined, B, T0)]);
    expect((await read()).spec?.holderIdentity).to.equal(created);
    const seen = await read();
    const replaced = await winner(
      [A, leases.hold(name, seen, A, T0 + 5000)],
      [B, leases.hold(name, seen, B, T0 + 5000)],
    );
    expect((await read()).spec?.holderIdentity).to.equal(replaced);
  });

  it('releases only a Lease its identity holds: the holder cleared and the duration cut to 1 s', async () => {
    await leases.hold(name, undefined, A, T0);
    const held = await read();
    await leases.release(held, 'replica-b');
    expect((await read()).metadata?.resourceVersion, 'not released by another').to.equal(
      held.metadata?.resourceVersion,
    );
    await leases.release(held, 'replica-a');
    const released = await read();
    expect(released.spec?.holderIdentity).to.equal(undefined);
    expect(released.spec).to.include({ leaseDurationSeconds: 1, leaseTransitions: 0 });
  });

  it('deletes the Lease as read, and not one written since', async () => {
    await leases.hold(name, undefined, A, T0);
    const seen = await read();
    await leases.hold(name, seen, A, T0 + 1000);
    const refused = await leases.delete(seen).then(
      () => 'deleted',
      (error: unknown) => conflict(error),
    );
    expect(refused, 'renewed since: kept').to.equal(true);
    await leases.delete(await read());
    expect(await leases.read(name)).to.equal(undefined);
  });
});

describe('Lease checks', () => {
  const lease = (holderIdentity: string | undefined, renewedAt: number): V1Lease => ({
    spec: { holderIdentity, leaseDurationSeconds: 2, renewTime: new Date(renewedAt) },
  });
  const cases: [string, V1Lease | undefined, number, number | undefined, { free: boolean; expired?: boolean }][] = [
    ['no Lease', undefined, T0, undefined, { free: true }],
    ['nobody holds it', lease(undefined, T0), T0, T0, { free: true, expired: false }],
    ['seen changing within its duration', lease('replica-b', T0), T0 + 1999, T0, { free: false, expired: false }],
    ['not seen changing for its duration', lease('replica-b', T0), T0 + 2000, T0, { free: true, expired: true }],
    [
      'renewTime old, but seen changing lately',
      lease('replica-b', T0),
      T0 + 5000,
      T0 + 4000,
      { free: false, expired: false },
    ],
    [
      'renewTime new, but seen unchanged for long',
      lease('replica-b', T0 + 5000),
      T0 + 5000,
      T0,
      { free: true, expired: true },
    ],
  ];
  for (const [title, subject, now, renewedAt, expected] of cases)
    it(`${title}: free ${expected.free}`, () => {
      expect(free(subject, now, renewedAt)).to.equal(expected.free);
      if (subject) expect(expired(subject, now, renewedAt ?? now)).to.equal(expected.expired);
    });

  it('held by its holder only', () => {
    expect([heldBy(lease('replica-a', T0), 'replica-a'), heldBy(lease('replica-b', T0), 'replica-a')]).to.deep.equal([
      true,
      false,
    ]);
    expect([heldBy(undefined, 'replica-a'), heldBy(lease(undefined, T0), 'replica-a')]).to.deep.equal([false, false]);
  });
});
