import { createHash } from 'node:crypto';
import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.js';
import type { Reconciler, Request } from './controller.js';
import { heldBy, Leases } from './lease.js';
import { LeaseSightings } from './lease-sightings.js';
import { fairShare } from './shard-assignment.js';

/** On every Lease of a shard group: which group (the prefix), and whether it is a shard's or a replica's. */
export const SHARD_GROUP_LABEL = 'keymaster.dev/shard-group';
const KIND_LABEL = 'keymaster.dev/shard-lease';
/** On a replica's Lease: its --shards, since shards of different counts hold different clusters. */
const COUNT_ANNOTATION = 'keymaster.dev/shards';

export interface ShardOwnerOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Leases are `<prefix>-shard-<i>`, and `<prefix>-replica-<digest>` per live replica. */
  prefix: string;
  shards: number;
  /** This replica: hostname and a random suffix. */
  identity: string;
  /** As leader election's: 15 s lease, 10 s renew deadline, 2 s retry period. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  observer?: ShardObserver;
  /** A shard was taken: its objects are now this replica's to reconcile. */
  onAcquired?: (shard: number) => void;
  /** A shard was given up or lost: drop its work queued outside the reconciles (tag work). */
  onGivenUp?: (shard: number) => void;
  /** Whether work of the shard runs outside the reconciles: its Lease is released only once none does. */
  busy?: (shard: number) => boolean;
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

/** What the metrics see: which shards this replica holds, and each handover. */
export interface ShardObserver {
  owned(shard: number, owned: boolean): void;
  handover(shard: number, event: 'acquired' | 'released' | 'lost'): void;
}

interface HeldShard {
  /** When the last successful write of the Lease was sent (local clock). */
  renewedAt: number;
  deadline: unknown;
  /** Reconciles of the shard's objects running now. */
  inFlight: number;
  /** Given up (over quota, or stopping): no new reconciles; the Lease is released once inFlight is 0. */
  releasing: boolean;
}

type Timing = Required<Pick<ShardOwnerOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>>;

/**
 * Shard ownership on coordination.k8s.io/v1 Leases (docs/reconciler.md#shards). Every retry period
 * a replica lists its group's Leases, renews its replica Lease and the shard Leases it holds, then
 * takes free shards or gives up extra ones until it holds its fair share of the live replicas.
 *
 * No object is reconciled by two replicas: a holder stops reconciling a shard when its renewals have
 * failed for the renew deadline, while others take a shard over only after a lease duration without
 * seeing it renewed, measured on their own clocks from when they saw the last change (as client-go
 * does, so clock skew does not matter). A shard given up on purpose is released only once the
 * reconciles of its objects in hand have finished.
 */
export class ShardOwner {
  readonly #options: ShardOwnerOptions & Timing & { clock: Clock };
  readonly #leases: Leases;
  readonly #held = new Map<number, HeldShard>();
  readonly #sightings = new LeaseSightings();
  #timer: unknown;
  #ticking: Promise<void> = Promise.resolve();
  #stopped = false;
  /** A replica with another --shards is live (a rollout changing it): this one takes no shard meanwhile. */
  #waiting = false;

  constructor(options: ShardOwnerOptions) {
    this.#options = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock: realClock,
      ...options,
    };
    this.#leases = new Leases(options.kubeConfig, options.namespace);
    for (let shard = 0; shard < options.shards; shard += 1) options.observer?.owned(shard, false);
  }

  /** Whether this replica reconciles the shard's objects now (an object of no shard: anywhere). */
  owns(shard: number | undefined): boolean {
    if (shard === undefined) return true;
    const held = this.#held.get(shard);
    return held !== undefined && !held.releasing;
  }

  /** The shards this replica reconciles. */
  get owned(): number[] {
    return [...this.#held.keys()].filter((shard) => this.owns(shard)).sort((a, b) => a - b);
  }

  /**
   * The reconciler, run only for objects of shards this replica owns (checked again at reconcile time:
   * a key queued before its shard moved is dropped), counting the reconciles in hand per shard. An
   * object of no shard (`undefined`: gone from the cache, so its reconcile only forgets it) runs anywhere.
   */
  guard(reconcile: Reconciler, shardOf: (request: Request) => number | undefined): Reconciler {
    return async (request, context) => {
      const shard = shardOf(request);
      if (shard === undefined) return reconcile(request, context);
      const held = this.#held.get(shard);
      if (!held || held.releasing) return undefined;
      held.inFlight += 1;
      try {
        return await reconcile(request, context);
      } finally {
        held.inFlight -= 1;
      }
    };
  }

  /** Takes part from now on: one round at once, then one every retry period. */
  start(): void {
    const round = async () => {
      // A round that throws (a callback) is logged; the next one comes all the same.
      this.#ticking = this.tick().catch((error: unknown) =>
        this.#options.log?.('warn', 'shard round failed', { error: String(error) }),
      );
      await this.#ticking;
      if (!this.#stopped) this.#timer = this.#options.clock.setTimeout(() => void round(), this.#options.retryPeriodMs);
    };
    void round();
  }

  /**
   * Stops taking part: gives every shard up (call it once the reconciles are drained), releases their
   * Leases and deletes this replica's, so that the others take the shards over at once.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#options.clock.clearTimeout(this.#timer);
    await this.#ticking;
    for (const held of this.#held.values()) held.releasing = true;
    const leases = await this.#list().catch(() => []);
    await Promise.all(
      [...this.#held.keys()].map((shard) =>
        this.#release(
          shard,
          leases.find((lease) => lease.metadata?.name === this.#shardName(shard)),
        ),
      ),
    );
    for (const shard of [...this.#held.keys()]) this.#drop(shard, 'lost', 'stopping');
    const mine = leases.find((lease) => lease.metadata?.name === this.#replicaName());
    if (mine) await this.#delete(mine);
  }

  /** One round: observe the group's Leases, renew what is held, then even the share out. */
  async tick(): Promise<void> {
    const { clock, identity } = this.#options;
    let leases: V1Lease[];
    try {
      leases = await this.#list();
    } catch (error) {
      // Renewals cannot be made either: each held shard's deadline timer decides when to stop.
      this.#options.log?.('warn', 'shard leases not listed', { error: String(error) });
      return;
    }
    const now = clock.now();
    this.#sightings.observe(leases, now);
    const byName = new Map(leases.map((lease) => [lease.metadata?.name ?? '', lease]));
    await this.#renewReplica(byName.get(this.#replicaName()));
    await Promise.all(
      [...this.#held].map(([shard, held]) =>
        held.releasing && held.inFlight === 0 && this.#options.busy?.(shard) !== true
          ? this.#release(shard, byName.get(this.#shardName(shard)))
          : this.#renew(shard, byName.get(this.#shardName(shard))),
      ),
    );
    const replicas = leases.filter(
      (lease) => lease.metadata?.labels?.[KIND_LABEL] === 'replica' && !this.#sightings.expired(lease, now),
    );
    for (const lease of leases)
      if (lease.metadata?.labels?.[KIND_LABEL] === 'replica' && this.#sightings.expired(lease, now))
        await this.#delete(lease);
    const otherCount = replicas.some(
      (lease) => lease.metadata?.annotations?.[COUNT_ANNOTATION] !== String(this.#options.shards),
    );
    if (otherCount !== this.#waiting)
      this.#options.log?.(
        'info',
        otherCount ? 'waiting for replicas with another --shards to stop' : 'no replica with another --shards left',
        {
          shards: this.#options.shards,
        },
      );
    this.#waiting = otherCount;
    // They keep their shards, which overlap any of this count: nobody takes or gives up one until they are gone.
    if (otherCount) return;
    const { quota, preferred } = fairShare(
      this.#options.shards,
      replicas.map((lease) => lease.spec?.holderIdentity ?? ''),
      identity,
    );
    const owned = this.owned;
    if (owned.length > quota) {
      // Give up the shards others prefer first, so that each lands where it is wanted.
      const extra = owned.sort((a, b) => Number(preferred.includes(a)) - Number(preferred.includes(b)) || b - a);
      for (const shard of extra.slice(0, owned.length - quota)) this.#giveUp(shard);
      return;
    }
    const free = Array.from({ length: this.#options.shards }, (_, shard) => shard)
      .filter((shard) => !this.#held.has(shard) && this.#sightings.free(byName.get(this.#shardName(shard)), now))
      .sort((a, b) => Number(preferred.includes(b)) - Number(preferred.includes(a)) || a - b);
    await Promise.all(
      free.slice(0, quota - owned.length).map((shard) => this.#acquire(shard, byName.get(this.#shardName(shard)))),
    );
  }

  #shardName(shard: number): string {
    return `${this.#options.prefix}-shard-${shard}`;
  }

  /** The identity holds a hostname and `_`, which a Lease name may not: a digest of it. */
  #replicaName(): string {
    const digest = createHash('sha256').update(this.#options.identity).digest('hex').slice(0, 12);
    return `${this.#options.prefix}-replica-${digest}`;
  }

  #list(): Promise<V1Lease[]> {
    return this.#leases.list(`${SHARD_GROUP_LABEL}=${this.#options.prefix}`);
  }

  #labels(kind: 'shard' | 'replica'): Record<string, string> {
    return { [SHARD_GROUP_LABEL]: this.#options.prefix, [KIND_LABEL]: kind };
  }

  async #renewReplica(current: V1Lease | undefined): Promise<void> {
    const { clock, shards } = this.#options;
    try {
      await this.#leases.hold(this.#replicaName(), current, this.#options, clock.now(), {
        labels: this.#labels('replica'),
        annotations: { [COUNT_ANNOTATION]: String(shards) },
      });
    } catch (error) {
      this.#options.log?.('warn', 'replica lease not renewed', { error: String(error) });
    }
  }

  async #acquire(shard: number, current: V1Lease | undefined): Promise<void> {
    const sentAt = this.#options.clock.now();
    const name = this.#shardName(shard);
    try {
      await this.#leases.hold(name, current, this.#options, sentAt, { labels: this.#labels('shard') });
    } catch {
      return; // Another replica wrote first (a conflict), or the API server is out of reach: not ours.
    }
    if (this.#stopped) return;
    this.#held.set(shard, { renewedAt: sentAt, deadline: undefined, inFlight: 0, releasing: false });
    this.#armDeadline(shard);
    this.#count(shard, 'acquired', true);
    this.#options.log?.('info', 'shard acquired', { shard, lease: name, from: current?.spec?.holderIdentity });
    this.#options.onAcquired?.(shard);
  }

  async #renew(shard: number, current: V1Lease | undefined): Promise<void> {
    if (!heldBy(current, this.#options.identity)) {
      this.#drop(shard, 'lost', current ? `taken by ${current.spec?.holderIdentity ?? 'nobody'}` : 'Lease deleted');
      return;
    }
    const sentAt = this.#options.clock.now();
    try {
      await this.#leases.hold(this.#shardName(shard), current, this.#options, sentAt);
    } catch {
      return; // Tried again next round; the deadline timer stops reconciling if it keeps failing.
    }
    const held = this.#held.get(shard);
    if (!held) return;
    held.renewedAt = sentAt;
    this.#armDeadline(shard);
  }

  async #release(shard: number, current: V1Lease | undefined): Promise<void> {
    try {
      if (current) await this.#leases.release(current, this.#options.identity);
    } catch {
      return; // Tried again next round, still renewed meanwhile.
    }
    this.#drop(shard, 'released', 'given up');
  }

  async #delete(lease: V1Lease): Promise<void> {
    try {
      // Only the version seen: a replica that came back meanwhile keeps its Lease.
      await this.#leases.delete(lease);
    } catch {
      // Gone already, or renewed meanwhile.
    }
  }

  /** Stops reconciling the shard (no new reconciles); its Lease is released by a later round. */
  #giveUp(shard: number): void {
    const held = this.#held.get(shard);
    if (!held) return;
    held.releasing = true;
    this.#options.observer?.owned(shard, false);
    this.#options.onGivenUp?.(shard);
    this.#options.log?.('info', 'shard given up', { shard, inFlight: held.inFlight });
  }

  /** Stops reconciling when renewals have failed for the renew deadline: before anyone may take over. */
  #armDeadline(shard: number): void {
    const held = this.#held.get(shard);
    if (!held) return;
    const { clock, renewDeadlineMs } = this.#options;
    clock.clearTimeout(held.deadline);
    held.deadline = clock.setTimeout(
      () => this.#drop(shard, 'lost', 'renew deadline passed'),
      held.renewedAt + renewDeadlineMs - clock.now(),
    );
  }

  #drop(shard: number, event: 'lost' | 'released', why: string): void {
    const held = this.#held.get(shard);
    if (!held) return;
    this.#options.clock.clearTimeout(held.deadline);
    this.#held.delete(shard);
    this.#count(shard, event, false);
    if (!held.releasing) this.#options.onGivenUp?.(shard);
    this.#options.log?.(event === 'lost' ? 'warn' : 'info', `shard ${event}`, { shard, why, inFlight: held.inFlight });
  }

  #count(shard: number, event: 'acquired' | 'released' | 'lost', owned: boolean): void {
    this.#options.observer?.owned(shard, owned);
    this.#options.observer?.handover(shard, event);
  }
}
