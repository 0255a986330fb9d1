import type { Controller, Reconciler, Request } from './controller.js';
import type { CachedObject, InformerHandlers } from './informer.js';
import type { Predicate } from './predicates.js';

/** What a controller can watch: an informer, or a channel of events from inside the process. */
export interface Source<T> {
  addHandlers(handlers: InformerHandlers<T>): void;
}

/** What a controller reconciles: a source whose objects can be listed (a shard taken enqueues its own). */
export interface ListedSource<T> extends Source<T> {
  list(): readonly T[];
}

/** Maps an event of a watched object to the requests it affects; `previous` is set on updates. */
export type MapToRequests<T> = (object: T, previous?: T) => Iterable<Request>;

/** Work a controller runs outside its reconciles: dropped when its shard goes, waited for before its Lease goes. */
export interface OutsideWork {
  cancel(request: Request): void;
  isRunning(request: Request): boolean;
}

/** A controller as declared: what the manager needs to make it, shard it and run it. */
export interface ControllerDeclaration {
  name: string;
  reconcile: Reconciler;
  workers: number;
  /** The requests of every cached object the controller reconciles. */
  requests(): Request[];
  /** Which shard a request is of (--shards); undefined: of none. Default: every request is shard 0's. */
  shardOf?: (request: Request) => number | undefined;
  outsideWork?: OutsideWork;
  /** Registers the controller's event handlers, which enqueue into it. */
  watch(controller: Controller): void;
}

/** What runs declared controllers (the manager). */
export interface ControllerHost {
  add(declaration: ControllerDeclaration): Controller;
}

export const requestFor = (object: CachedObject): Request => ({
  namespace: object.metadata?.namespace ?? '',
  name: object.metadata?.name ?? '',
});

/** Handlers that tell `changed` of adds, deletes, and the updates that pass every predicate. */
export function onChange<T>(
  changed: (object: T, previous?: T) => void,
  predicates: readonly Predicate<T>[] = [],
): InformerHandlers<T> {
  return {
    add: (object) => changed(object),
    update: (object, previous) => {
      if (previous === undefined || predicates.every((predicate) => predicate(object, previous)))
        changed(object, previous);
    },
    delete: (object) => changed(object),
  };
}

/**
 * Declares a controller as controller-runtime's builder does: what it reconciles (`controllerFor`), which
 * updates of those matter (`withPredicate`), what else it watches and which requests an event of it
 * affects (`watches`), then `complete` hands it to the manager, which makes and runs it.
 */
export class ControllerBuilder<T extends CachedObject> {
  readonly #host: ControllerHost;
  readonly #name: string;
  readonly #source: ListedSource<T>;
  readonly #predicates: Predicate<T>[] = [];
  readonly #watches: ((controller: Controller) => void)[] = [];
  #workers = 1;
  #shardOf: ((request: Request) => number | undefined) | undefined;
  #outsideWork: OutsideWork | undefined;

  constructor(host: ControllerHost, name: string, source: ListedSource<T>) {
    this.#host = host;
    this.#name = name;
    this.#source = source;
  }

  /** Updates of the reconciled objects pass every predicate, or are not reconciled. */
  withPredicate(...predicates: Predicate<T>[]): this {
    this.#predicates.push(...predicates);
    return this;
  }

  /** Events of another source enqueue the requests `map` gives; its updates must pass `predicates`. */
  watches<U>(source: Source<U>, map: MapToRequests<U>, ...predicates: Predicate<U>[]): this {
    this.#watches.push((controller) =>
      source.addHandlers(
        onChange((object: U, previous?: U) => {
          for (const request of map(object, previous)) controller.enqueue(request);
        }, predicates),
      ),
    );
    return this;
  }

  /** --max-concurrent-reconciles, for a controller whose objects are many (default 1). */
  withWorkers(workers: number): this {
    this.#workers = workers;
    return this;
  }

  /** Which shard a request is of (--shards); without it every request is shard 0's. */
  shardedBy(shardOf: (request: Request) => number | undefined): this {
    this.#shardOf = shardOf;
    return this;
  }

  /** Work the controller runs outside its reconciles, which shards must know of. */
  withOutsideWork(work: OutsideWork): this {
    this.#outsideWork = work;
    return this;
  }

  complete(reconcile: Reconciler): Controller {
    const source = this.#source;
    const predicates = this.#predicates;
    return this.#host.add({
      name: this.#name,
      reconcile,
      workers: this.#workers,
      requests: () => source.list().map(requestFor),
      ...(this.#shardOf ? { shardOf: this.#shardOf } : {}),
      ...(this.#outsideWork ? { outsideWork: this.#outsideWork } : {}),
      watch: (controller) => {
        const enqueue = (object: T) => controller.enqueue(requestFor(object));
        source.addHandlers({ ...onChange(enqueue, predicates), resync: enqueue, parked: enqueue });
        for (const watch of this.#watches) watch(controller);
      },
    });
  }
}

export const controllerFor = <T extends CachedObject>(
  host: ControllerHost,
  name: string,
  source: ListedSource<T>,
): ControllerBuilder<T> => new ControllerBuilder(host, name, source);
