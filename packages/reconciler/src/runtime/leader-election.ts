import { ApiException, CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.js';

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The Lease's name, shared by every replica. */
  name: string;
  /** This replica: hostname and a random suffix. */
  identity: string;
  /** controller-runtime's defaults: 15 s lease, 10 s renew deadline, 2 s retry period. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: acquire when the lease is
 * free or expired, renew every retry period, and give up leadership when renewals fail for the
 * renew deadline. Writes use the Lease's resourceVersion, so two replicas never both win.
 */
export class LeaderElector {
  readonly #options: Required<Omit<LeaderElectionOptions, 'clock'>> & { clock: Clock };
  readonly #api: CoordinationV1Api;
  #leading = false;
  #stopped = false;
  #timer: unknown;

  constructor(options: LeaderElectionOptions) {
    this.#options = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock: realClock,
      ...options,
    };
    this.#api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  }

  get leading(): boolean {
    return this.#leading;
  }

  /**
   * Campaigns until elected, calls `onStarted`, then keeps the lease; calls `onStopped` if it is
   * lost. Resolves once elected.
   */
  async run(onStarted: () => void, onStopped: () => void): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.#options;
    while (!this.#stopped && !(await this.#tryAcquireOrRenew())) await this.#sleep(retryPeriodMs);
    if (this.#stopped) return;
    this.#leading = true;
    onStarted();
    let lastRenew = clock.now();
    const renew = async () => {
      if (this.#stopped) return;
      if (await this.#tryAcquireOrRenew()) lastRenew = clock.now();
      else if (clock.now() - lastRenew >= renewDeadlineMs) {
        this.#leading = false;
        onStopped();
        return;
      }
      this.#timer = clock.setTimeout(() => void renew(), retryPeriodMs);
    };
    this.#timer = clock.setTimeout(() => void renew(), retryPeriodMs);
  }

  /** Stops renewing and, when leading, releases the lease so that another replica takes over at once. */
  async release(): Promise<void> {
    this.#stopped = true;
    this.#options.clock.clearTimeout(this.#timer);
    if (!this.#leading) return;
    this.#leading = false;
    const { namespace, name, identity } = this.#options;
    try {
      const lease = await this.#api.readNamespacedLease({ namespace, name });
      if (lease.spec?.holderIdentity !== identity) return;
      lease.spec.holderIdentity = undefined;
      lease.spec.leaseDurationSeconds = 1;
      await this.#api.replaceNamespacedLease({ namespace, name, body: lease });
    } catch {
      // Best effort: the lease expires on its own.
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity, leaseDurationMs, clock } = this.#options;
    // A MicroTime: kube-apiserver refuses a Lease whose times lack six fractional digits (a Date has three).
    const now = new V1MicroTime(clock.now());
    const spec = { holderIdentity: identity, leaseDurationSeconds: Math.round(leaseDurationMs / 1000), renewTime: now };
    try {
      let lease: V1Lease;
      try {
        lease = await this.#api.readNamespacedLease({ namespace, name });
      } catch (error) {
        if (!(error instanceof ApiException && error.code === 404)) throw error;
        await this.#api.createNamespacedLease({
          namespace,
          body: { metadata: { name, namespace }, spec: { ...spec, acquireTime: now, leaseTransitions: 0 } },
        });
        return true;
      }
      const holder = lease.spec?.holderIdentity;
      const renewedAt = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
      const duration = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder && holder !== identity && renewedAt + duration > now.getTime()) return false;
      const changed = holder !== identity;
      lease.spec = {
        ...spec,
        acquireTime: changed ? now : (lease.spec?.acquireTime ?? now),
        leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (changed ? 1 : 0),
      };
      await this.#api.replaceNamespacedLease({ namespace, name, body: lease });
      return true;
    } catch {
      // A conflict (another replica wrote first) or an unreachable API server: not acquired this round.
      return false;
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => (this.#timer = this.#options.clock.setTimeout(resolve, ms)));
  }
}
