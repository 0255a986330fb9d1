import { CoordinationV1Api, CoreV1Api, KubeConfig, V1MicroTime } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { LeaderElector } from '../../src/runtime/leader-election.js';
import { eventually } from '../integration/harness.js';

const NAMESPACE = 'keymaster-system';
// Short durations so that the test takes seconds; the defaults are controller-runtime's 15 s / 10 s / 2 s.
const TIMING = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

describe('LeaderElector against the kube-emulator', function () {
  this.timeout(30_000);
  let kube: KubeEmulator;
  let kubeConfig: KubeConfig;
  let leases: CoordinationV1Api;
  const electors: LeaderElector[] = [];

  const elector = (name: string, identity: string) => {
    const made = new LeaderElector({ kubeConfig, namespace: NAMESPACE, name, identity, ...TIMING });
    electors.push(made);
    return made;
  };
  const lease = (name: string) => leases.readNamespacedLease({ namespace: NAMESPACE, name });

  before(async () => {
    kube = await startKubeEmulator();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    leases = kubeConfig.makeApiClient(CoordinationV1Api);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  });
  afterEach(async () => {
    kube.faults.clear();
    await Promise.all(electors.splice(0).map((made) => made.release()));
  });
  after(() => kube.stop());

  it('elects one replica; the other takes over at once when the leader releases the Lease', async () => {
    const events: string[] = [];
    const a = elector('handover', 'replica-a');
    const b = elector('handover', 'replica-b');
    await a.run(
      () => events.push('a started'),
      () => events.push('a stopped'),
    );
    void b.run(
      () => events.push('b started'),
      () => events.push('b stopped'),
    );
    // a renews several times (renewTime moves) while b keeps trying: b never gets in.
    const first = (await lease('handover')).spec?.renewTime;
    await eventually(async () => {
      const current = await lease('handover');
      expect(current.spec?.holderIdentity).to.equal('replica-a');
      expect(new Date(current.spec!.renewTime!).getTime()).to.be.greaterThan(
        new Date(first!).getTime() + 3 * TIMING.retryPeriodMs,
      );
    });
    expect(b.leading).to.equal(false);
    await a.release();
    await eventually(() => expect(b.leading).to.equal(true));
    const taken = await lease('handover');
    expect(taken.spec).to.include({ holderIdentity: 'replica-b', leaseTransitions: 1 });
    expect(events).to.deep.equal(['a started', 'b started']);
  });

  // The holder's renewTime is on its clock: a replica counts the lease duration from when it saw the
  // Lease change last, on its own clock, as client-go does. Stale or far ahead, the Lease is taken once
  // it has not changed for a lease duration.
  for (const [title, renewedAt] of [
    ['stopped renewing long ago', Date.now() - 60_000],
    ['stopped renewing, its clock an hour ahead', Date.now() + 3_600_000],
  ] as const)
    it(`takes over a Lease whose holder ${title}`, async () => {
      const name = `stale-${renewedAt > Date.now() ? 'ahead' : 'behind'}`;
      const renewTime = new V1MicroTime(renewedAt);
      await leases.createNamespacedLease({
        namespace: NAMESPACE,
        body: {
          metadata: { name },
          spec: {
            holderIdentity: 'gone',
            leaseDurationSeconds: 1,
            renewTime,
            acquireTime: renewTime,
            leaseTransitions: 3,
          },
        },
      });
      const c = elector(name, 'replica-c');
      await c.run(
        () => undefined,
        () => undefined,
      );
      expect((await lease(name)).spec).to.include({ holderIdentity: 'replica-c', leaseTransitions: 4 });
    });

  it('gives up leadership when renewals fail for the renew deadline', async () => {
    let stopped = false;
    const d = elector('lost', 'replica-d');
    await d.run(
      () => undefined,
      () => (stopped = true),
    );
    kube.faults.add({
      verb: 'update',
      resource: 'leases.coordination.k8s.io',
      error: { code: 500, message: 'etcd is down' },
      rate: 1,
    });
    await eventually(() => expect(stopped).to.equal(true));
    expect(d.leading).to.equal(false);
  });
});
