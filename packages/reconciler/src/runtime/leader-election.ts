import type { KubeConfig } from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.js';
import { heldBy, Leases } from './lease.js';
import { LeaseSightings } from './lease-sightings.js';

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
 * free or expired (a lease duration after this replica last saw it change: no clock skew), renew
 * every retry period, and give up leadership when renewals fail for the renew deadline. Writes use
 * the Lease's resourceVersion, so two replicas never both win.
 */
export class LeaderElector {
  readonly #options: Required<Omit<LeaderElectionOptions, 'clock'>> & { clock: Clock };
  readonly #leases: Leases;
  readonly #sightings = new LeaseSightings();
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
    this.#leases = new Leases(options.kubeConfig, options.namespace);
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
    const { name, identity } = this.#options;
    try {
      const lease = await this.#leases.read(name);
      if (lease) await this.#leases.release(lease, identity);
    } catch {
      // Best effort: the lease expires on its own.
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { name, identity, clock } = this.#options;
    const now = clock.now();
    try {
      const lease = await this.#leases.read(name);
      this.#sightings.observe(lease ? [lease] : [], now);
      if (!heldBy(lease, identity) && !this.#sightings.free(lease, now)) return false;
      await this.#leases.hold(name, lease, this.#options, now);
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
