import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from './logging.js';
import type { ControllerDeclaration, ControllerHost } from './runtime/builder.js';
import { realClock, type Clock } from './runtime/clock.js';
import { Controller, type ControllerOptions } from './runtime/controller.js';
import { LeaderElector, type LeaderElectionOptions } from './runtime/leader-election.js';
import type { RuntimeMetrics } from './runtime/metrics.js';
import { ShardOwner, type ShardObserver, type ShardOwnerOptions } from './runtime/shards.js';

type LeaseTiming = Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>;

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  leaderElection?: Pick<LeaderElectionOptions, 'namespace' | 'name' | 'identity'> & LeaseTiming;
  /** --shards: this replica reconciles the objects of the shards whose Lease it holds (docs/reconciler.md#shards). */
  shards?: Pick<ShardOwnerOptions, 'namespace' | 'prefix' | 'identity'> & LeaseTiming & { count: number };
  /** What every controller shares: how reconcile errors are told and counted. */
  controllers: Pick<ControllerOptions, 'isExpected' | 'onError'>;
  metrics: RuntimeMetrics;
  shardObserver?: ShardObserver;
  logger: Logger;
  clock?: Clock;
  /** Called when leadership is lost: the process must stop, as controller-runtime's does. */
  onLeadershipLost?: () => void;
}

/** Informers, and anything else that fills a cache controllers read: started and synced before them. */
export interface CacheSource {
  readonly synced: boolean;
  start(): Promise<void>;
  waitForSync(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs what was added to it, as controller-runtime's manager: startup steps, then the caches until
 * they are synced, then (once this replica leads) the controllers; shards guard the controllers'
 * reconciles. It knows no controller: each declares itself in its own setup.ts.
 */
export class Manager implements ControllerHost {
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #sources: CacheSource[] = [];
  readonly #controllers: { controller: Controller; declaration: ControllerDeclaration }[] = [];
  readonly #startSteps: (() => Promise<void>)[] = [];
  readonly #stopSteps: (() => Promise<void>)[] = [];
  readonly #elector: LeaderElector | undefined;
  readonly #shards: ShardOwner | undefined;
  #started = false;
  /** Set while start() waits for the caches: a source that can never sync ends the start. */
  #refuseStart: ((error: Error) => void) | undefined;

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    const { kubeConfig, leaderElection, shards } = options;
    this.#elector = leaderElection && new LeaderElector({ kubeConfig, ...leaderElection, clock: this.#clock });
    this.#shards = shards && this.#shardOwner(shards);
  }

  /** Ready once every cache is synced: reconciles then see the whole world. */
  get ready(): boolean {
    return this.#sources.every((source) => source.synced);
  }

  /** The controllers added, by name. */
  controller(name: string): Controller | undefined {
    return this.#controllers.find(({ controller }) => controller.name === name)?.controller;
  }

  addSource(source: CacheSource): void {
    this.#sources.push(source);
  }

  /** A step run before the caches start (in the order added). */
  onStart(step: () => Promise<void>): void {
    this.#startSteps.push(step);
  }

  /** A step run once the controllers have stopped, before the Leases go and the caches stop. */
  onStop(step: () => Promise<void>): void {
    this.#stopSteps.push(step);
  }

  /** Ends a start waiting for the caches (a list refused: the cache would never sync). */
  refuseStart(error: Error): void {
    this.#refuseStart?.(error);
  }

  add(declaration: ControllerDeclaration): Controller {
    const { name, workers, shardOf = () => 0 } = declaration;
    const shards = this.#shards;
    const controller = new Controller({
      name,
      workers,
      reconcile: shards ? shards.guard(declaration.reconcile, shardOf) : declaration.reconcile,
      clock: this.#clock,
      metrics: this.#options.metrics,
      ...this.#options.controllers,
      ...(shards ? { owns: (request) => shards.owns(shardOf(request)) } : {}),
    });
    declaration.watch(controller);
    this.#controllers.push({ controller, declaration });
    return controller;
  }

  async start(): Promise<void> {
    for (const step of this.#startSteps) await step();
    const refused = new Promise<never>((_, reject) => (this.#refuseStart = reject));
    try {
      const synced = this.#sources.map(async (source) => {
        await source.start();
        await source.waitForSync();
      });
      await Promise.race([Promise.all(synced), refused]);
    } catch (error) {
      await Promise.all(this.#sources.map((source) => source.stop()));
      throw error;
    } finally {
      this.#refuseStart = undefined;
    }
    const begin = () => {
      this.#started = true;
      for (const { controller } of this.#controllers) controller.start();
      this.#options.logger.info('reconciling', {
        controllers: this.#controllers.map(({ controller }) => controller.name),
      });
    };
    if (!this.#elector) {
      begin();
      this.#shards?.start();
      return;
    }
    const lease = this.#options.leaderElection;
    this.#leading(false);
    this.#options.logger.info('waiting for leadership', { lease });
    await this.#elector.run(
      () => {
        this.#leading(true);
        this.#options.logger.info('became leader', { lease });
        begin();
      },
      () => {
        this.#leading(false);
        this.#options.logger.error('leadership lost');
        this.#options.onLeadershipLost?.();
      },
    );
  }

  /** Stops taking work, finishes what is in hand, releases the Leases and stops the caches. */
  async stop(): Promise<void> {
    if (this.#started) await Promise.all(this.#controllers.map(({ controller }) => controller.stop()));
    for (const step of this.#stopSteps) await step();
    await this.#shards?.stop();
    await this.#elector?.release();
    if (this.#elector) this.#leading(false);
    await Promise.all(this.#sources.map((source) => source.stop()));
  }

  /** Takes shard Leases; a shard taken enqueues each controller's requests of it. */
  #shardOwner(shards: NonNullable<ManagerOptions['shards']>): ShardOwner {
    const { kubeConfig, logger, shardObserver } = this.#options;
    const ofShard = (declaration: ControllerDeclaration, shard: number) =>
      declaration.requests().filter((request) => (declaration.shardOf?.(request) ?? 0) === shard);
    return new ShardOwner({
      kubeConfig,
      ...shards,
      shards: shards.count,
      clock: this.#clock,
      ...(shardObserver ? { observer: shardObserver } : {}),
      log: (level, message, fields) => logger[level](message, fields),
      onGivenUp: (shard) => {
        for (const { declaration } of this.#controllers)
          for (const request of declaration.outsideWork ? ofShard(declaration, shard) : [])
            declaration.outsideWork!.cancel(request);
      },
      busy: (shard) =>
        this.#controllers.some(
          ({ declaration }) =>
            declaration.outsideWork &&
            ofShard(declaration, shard).some((request) => declaration.outsideWork!.isRunning(request)),
        ),
      onAcquired: (shard) => {
        for (const { controller, declaration } of this.#controllers)
          for (const request of ofShard(declaration, shard)) controller.enqueue(request);
      },
    });
  }

  /** leader_election_master_status: whether this replica reconciles, for the "no leader" alert. */
  #leading(leading: boolean): void {
    const name = this.#options.leaderElection?.name ?? '';
    this.#options.metrics.leaderElectionMasterStatus.set({ name }, leading ? 1 : 0);
  }
}
