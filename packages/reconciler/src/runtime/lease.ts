import {
  ApiException,
  CoordinationV1Api,
  V1LeaseSpec,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';

/** Who holds a Lease, and for how long after each renewal. */
export type LeaseHolder = { identity: string; leaseDurationMs: number };

/** Labels and annotations a Lease is created with (a replace keeps those it has). */
export type LeaseMetadata = { labels?: Record<string, string>; annotations?: Record<string, string> };

/** Whether `identity` holds the Lease. */
export function heldBy(lease: V1Lease | undefined, identity: string): boolean {
  return lease?.spec?.holderIdentity === identity;
}

/**
 * Whether the Lease's holder has let its lease duration pass without renewing, counted from
 * `renewedAt` (ms): when the reader saw the Lease change last, on its own clock (`LeaseSightings`),
 * never the holder's renewTime, which is on the holder's clock.
 */
export function expired(lease: V1Lease, now: number, renewedAt: number): boolean {
  return now - renewedAt >= (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
}

/** Whether anybody may take the Lease: there is none, nobody holds it, or its holder let it expire. */
export function free(lease: V1Lease | undefined, now: number, renewedAt: number | undefined): boolean {
  return !lease?.spec?.holderIdentity || expired(lease, now, renewedAt ?? now);
}

/**
 * The coordination.k8s.io/v1 Leases of one namespace, written as client-go's LeaseLock writes them.
 * Every write carries what was read: a create fails when the Lease exists, a replace or delete when
 * the Lease's resourceVersion moved, so of two replicas writing on the same read only one wins.
 * Writes throw (409 for the loser); the callers decide what a failed write means to them.
 */
export class Leases {
  readonly #api: CoordinationV1Api;
  readonly #namespace: string;

  constructor(kubeConfig: KubeConfig, namespace: string) {
    this.#api = kubeConfig.makeApiClient(CoordinationV1Api);
    this.#namespace = namespace;
  }

  /** The Lease, or undefined when there is none. */
  async read(name: string): Promise<V1Lease | undefined> {
    try {
      return await this.#api.readNamespacedLease({ namespace: this.#namespace, name });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }

  async list(labelSelector: string): Promise<V1Lease[]> {
    return (await this.#api.listNamespacedLease({ namespace: this.#namespace, labelSelector })).items;
  }

  /**
   * Acquires or renews the Lease for `identity` at `now` (ms): creates it when `current` is undefined,
   * else replaces `current` at its resourceVersion. A new holder (taking it over, or from nobody)
   * gets a new acquireTime and counts a transition; a renewal keeps both.
   */
  async hold(
    name: string,
    current: V1Lease | undefined,
    { identity, leaseDurationMs }: LeaseHolder,
    now: number,
    metadata: LeaseMetadata = {},
  ): Promise<void> {
    // A MicroTime: kube-apiserver refuses a Lease whose times lack six fractional digits (a Date has three).
    const renewTime = new V1MicroTime(now);
    const renewal = heldBy(current, identity);
    const spec = {
      holderIdentity: identity,
      // Whole seconds, rounded up, so that others never wait less than the holder's lease duration.
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      renewTime,
      acquireTime: renewal ? (current?.spec?.acquireTime ?? renewTime) : renewTime,
      leaseTransitions: current ? (current.spec?.leaseTransitions ?? 0) + (renewal ? 0 : 1) : 0,
    };
    const namespace = this.#namespace;
    // The metadata read: its resourceVersion makes the replace fail if anyone wrote since.
    if (current)
      await this.#api.replaceNamespacedLease({ namespace, name, body: { metadata: current.metadata, spec } });
    else
      await this.#api.createNamespacedLease({ namespace, body: { metadata: { ...metadata, name, namespace }, spec } });
  }

  /**
   * Gives the Lease up, when `identity` holds it, so that another replica takes it at once: clears the
   * holder (and, as client-go does, shortens the lease duration to 1 s for readers that ignore that).
   */
  async release(current: V1Lease, identity: string): Promise<void> {
    if (!heldBy(current, identity)) return;
    await this.#api.replaceNamespacedLease({
      namespace: this.#namespace,
      name: current.metadata?.name ?? '',
      body: {
        metadata: current.metadata,
        spec: Object.assign(new V1LeaseSpec(), current.spec, { holderIdentity: undefined, leaseDurationSeconds: 1 }),
      },
    });
  }

  /** Deletes the Lease as read: one written since (its holder came back) stays. */
  async delete(current: V1Lease): Promise<void> {
    await this.#api.deleteNamespacedLease({
      namespace: this.#namespace,
      name: current.metadata?.name ?? '',
      body: { preconditions: { resourceVersion: current.metadata?.resourceVersion } },
    });
  }
}
