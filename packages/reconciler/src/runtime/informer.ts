import {
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.js';
import { NamespaceBound } from './namespace-bound.js';
import { objectKey } from './object-key.js';

/**
 * What an informer needs of an object. Custom objects arrive as plain JSON (timestamps are strings),
 * so this is looser than client-node's KubernetesObject, whose typed models hold Dates.
 */
export interface CachedObject {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string | Date;
  };
}

export interface InformerHandlers<T> {
  add?(object: T): void;
  update?(object: T, previous: T | undefined): void;
  delete?(object: T): void;
  /** Every cached object again, each sync period: a reconcile that catches what events missed. */
  resync?(object: T): void;
  /** An object past its namespace's bound, added or changed: only its metadata is kept (`InformerOptions.bound`). */
  parked?(object: T): void;
}

/** One page of a list; `continue` set when the server has more (a list asked with a limit). */
export interface ListPage<T> {
  items: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** `Listed`: the objects as the server sends them, when the transform keeps something else of them. */
export interface InformerOptions<T extends CachedObject, Listed = T> {
  kubeConfig: KubeConfig;
  /** The list/watch path, e.g. `/apis/infrastructure.keymaster.dev/v1beta1/awsclusters`. */
  path: string;
  /** The first page, or the page a continue token names; the informer reads every page. */
  list: (continueToken?: string) => Promise<ListPage<Listed>>;
  labelSelector?: string;
  /** Handlers told first; more are added with `addHandlers`. */
  handlers?: InformerHandlers<T>;
  /** --sync-period; 0 turns resync off. */
  resyncMs: number;
  clock?: Clock;
  /** Told about every watch failure before the informer restarts. */
  onError?: (error: unknown, retryInMs: number) => void;
  /** Told each time a list has filled the cache: the first, and each after a restart. */
  onListed?: () => void;
  /**
   * What the cache keeps of each object, listed or watched, before any handler sees it: only what the
   * controller reads (`kube/cache-transforms.ts`), so that memory follows the fleet, not its history.
   * Undefined keeps nothing: the object is not cached (and leaves the cache if it was, as if deleted).
   */
  transform?: (object: Listed) => T | undefined;
  /**
   * At most `perNamespace` objects of each namespace are cached whole and reach the handlers; the
   * others are parked (`park`: their metadata only, `handlers.parked`) and fetched whole with `fetch`
   * when a place frees: what a tenant creates past the bound costs the controller nothing but metadata.
   */
  bound?: {
    perNamespace: number;
    /** What is kept of a parked object: its metadata, and what its reconcile needs to say it is parked. */
    park: (object: T) => T;
    fetch: (name: string, namespace: string) => Promise<Listed | undefined>;
    /** Told a namespace's count of parked objects whenever it changes (a metric). */
    parkedChanged?: (namespace: string, parked: number) => void;
  };
}

const RESTART_BASE_MS = 1_000;
const RESTART_MAX_MS = 30_000;

/**
 * A client-node informer that keeps going: client-node stops on any watch error but 410 Gone, so
 * this restarts it with exponential backoff (1 s doubling to 30 s, reset by the next event). It
 * also resyncs on a period, says when its cache has been filled by the first list, and can bound what
 * it keeps per namespace (`InformerOptions.bound`).
 */
export class Informer<T extends CachedObject, Listed = T> {
  readonly #options: InformerOptions<T, Listed>;
  readonly #clock: Clock;
  readonly #informer: ListWatch<KubernetesObject>;
  readonly #previous = new Map<string, T>();
  readonly #handlers: InformerHandlers<T>[] = [];
  readonly #indexes = new Map<string, Index<T>>();
  readonly #bound: NamespaceBound | undefined;
  /** Parked objects as cached: their metadata only. */
  readonly #stubs = new WeakSet<object>();
  /** Objects promoted from parked, fetched whole, until the watch brings them whole. */
  readonly #promoted = new Map<string, T>();
  #synced = false;
  readonly #syncWaiters: (() => void)[] = [];
  #failures = 0;
  #restartTimer: unknown;
  #resyncTimer: unknown;
  #stopped = false;

  constructor(options: InformerOptions<T, Listed>) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    if (options.handlers) this.#handlers.push(options.handlers);
    const { transform, bound } = options;
    this.#bound = bound && new NamespaceBound(bound.perNamespace, bound.parkedChanged);
    const whole = (object: Listed): T | undefined => (transform ? transform(object) : (object as unknown as T));
    const list = async () => {
      // Page by page, each kept as the transform (and the bound) keeps it before the next is read: a
      // list of large objects never sits whole in memory.
      const admission = this.#bound?.startList(this.#park);
      const items: T[] = [];
      const keep = (page: ListPage<Listed>) => {
        for (const object of page.items.map(whole)) {
          if (object === undefined) continue;
          if (admission) admission.add(object);
          else items.push(object);
        }
      };
      let page = await options.list();
      keep(page);
      for (let next = page.metadata?.continue; next; next = page.metadata?.continue) {
        page = await options.list(next);
        keep(page);
      }
      if (admission) items.push(...admission.finish());
      // Stopped while listing: no watch is started (client-node would start one).
      if (this.#stopped) throw new Error('informer stopped');
      // client-node fills its cache right after this promise resolves; the cache is filled by the next turn.
      setImmediate(() => {
        this.#failures = 0;
        this.#markSynced();
        options.onListed?.();
      });
      return {
        items,
        metadata: { resourceVersion: page.metadata?.resourceVersion },
      } as KubernetesListObject<KubernetesObject>;
    };
    // client-node's makeInformer, with the watch handing on transformed objects.
    const bounded = (object: Listed): T | undefined => {
      const kept = whole(object);
      return kept === undefined || this.#bound!.admit(kept) ? kept : this.#park(kept);
    };
    const watch =
      transform || bound
        ? new TransformingWatch(
            options.kubeConfig,
            (bound ? bounded : transform) as (object: unknown) => CachedObject | undefined,
            (object) => this.#informer.get(object.metadata?.name ?? '', object.metadata?.namespace),
          )
        : new Watch(options.kubeConfig);
    this.#informer = new ListWatch<KubernetesObject>(options.path, watch, list, false, options.labelSelector);
    this.#informer.on('add', (added) => {
      this.#failures = 0;
      this.#changed(added as T);
    });
    this.#informer.on('update', (updated) => {
      this.#failures = 0;
      this.#changed(updated as T);
    });
    this.#informer.on('delete', (deleted) => {
      const object = deleted as T;
      const key = keyOf(object);
      const wasWhole = this.#previous.delete(key);
      this.#promoted.delete(key);
      if (wasWhole) {
        for (const index of this.#indexes.values()) index.remove(key);
        this.#tell((handlers) => handlers.delete?.(object));
      }
      const next = this.#bound?.remove(object);
      if (next) this.#promote(next as T, 0);
    });
    this.#informer.on('error', (error) => this.#restart(error));
  }

  get synced(): boolean {
    return this.#synced;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#scheduleResync();
    await this.#informer.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#restartTimer);
    this.#clock.clearTimeout(this.#resyncTimer);
    await this.#informer.stop();
  }

  /** Resolves once the first list has filled the cache. */
  waitForSync(): Promise<void> {
    return this.#synced ? Promise.resolve() : new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /** A whole cached object; a parked one is not here (see `parked`). */
  get(name: string, namespace?: string): T | undefined {
    const promoted = this.#promoted.get(objectKey({ namespace, name }));
    if (promoted) return promoted;
    const cached = this.#informer.get(name, namespace) as T | undefined;
    return cached && !this.#stubs.has(cached) ? cached : undefined;
  }

  /** The whole cached objects (of a namespace); parked ones are left out. */
  list(namespace?: string): readonly T[] {
    const objects = this.#informer.list(namespace) as readonly T[];
    if (!this.#bound) return objects;
    return objects
      .map((object) => (this.#stubs.has(object) ? this.#promoted.get(keyOf(object)) : object))
      .filter((object) => object !== undefined);
  }

  /** Tells these handlers too, after those added before them. */
  addHandlers(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
  }

  /**
   * Keeps an index of the whole cached objects by the values `valuesOf` gives each (as controller-runtime's
   * FieldIndexer): kept before any handler hears of a change, so handlers and reconciles read it current.
   */
  index(name: string, valuesOf: (object: T) => readonly string[]): void {
    if (this.#indexes.has(name)) throw new Error(`informer index ${name} is defined twice`);
    const index = new Index(valuesOf);
    for (const object of this.list()) index.set(keyOf(object), object);
    this.#indexes.set(name, index);
  }

  /** The whole cached objects the index files under the value. */
  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`informer index ${name} is not defined`);
    return index
      .objects(value)
      .map(({ metadata }) => this.get(metadata?.name ?? '', metadata?.namespace))
      .filter((object) => object !== undefined);
  }

  /** A parked object's metadata: it is past its namespace's bound. */
  parked(name: string, namespace: string): T | undefined {
    const cached = this.#informer.get(name, namespace) as T | undefined;
    return cached && this.#stubs.has(cached) && !this.#promoted.has(keyOf(cached)) ? cached : undefined;
  }

  /** How many objects of a namespace are cached whole and parked. */
  count(namespace: string): { served: number; parked: number } {
    return this.#bound?.count(namespace) ?? { served: this.list(namespace).length, parked: 0 };
  }

  /** A parked object as cached: `bound.park`'s, marked as parked. */
  readonly #park = (object: T): T => {
    const stub = this.#options.bound!.park(object);
    this.#stubs.add(stub);
    return stub;
  };

  #changed(object: T): void {
    const key = keyOf(object);
    if (this.#stubs.has(object)) {
      this.#tell((handlers) => handlers.parked?.(object));
      return;
    }
    this.#promoted.delete(key);
    const previous = this.#previous.get(key);
    this.#previous.set(key, object);
    this.#indexed(key, object);
    if (previous) this.#tell((handlers) => handlers.update?.(object, previous));
    else this.#tell((handlers) => handlers.add?.(object));
  }

  #indexed(key: string, object: T): void {
    for (const index of this.#indexes.values()) index.set(key, object);
  }

  #tell(event: (handlers: InformerHandlers<T>) => void): void {
    for (const handlers of this.#handlers) event(handlers);
  }

  /** A parked object given a place: fetched whole (retried with backoff until it is, or is gone). */
  #promote(stub: T, failures: number): void {
    const { name = '', namespace = '' } = stub.metadata ?? {};
    const key = keyOf(stub);
    const { bound, transform } = this.#options;
    bound!.fetch(name, namespace).then(
      (fetched) => {
        const whole = fetched && (transform ? transform(fetched) : (fetched as unknown as T));
        // Gone, or brought whole by the watch meanwhile: nothing to do.
        if (this.#stopped || !whole || this.#previous.has(key) || this.#bound!.isParked(stub)) return;
        this.#promoted.set(key, whole);
        this.#previous.set(key, whole);
        this.#indexed(key, whole);
        this.#tell((handlers) => handlers.add?.(whole));
      },
      (error: unknown) => {
        if (this.#stopped) return;
        const delay = Math.min(RESTART_BASE_MS * 2 ** failures, RESTART_MAX_MS);
        this.#options.onError?.(error, delay);
        this.#clock.setTimeout(() => {
          if (!this.#stopped && this.#informer.get(name, namespace)) this.#promote(stub, failures + 1);
        }, delay);
      },
    );
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
  }

  #restart(error: unknown): void {
    if (this.#stopped) return;
    const delay = Math.min(RESTART_BASE_MS * 2 ** this.#failures, RESTART_MAX_MS);
    this.#failures += 1;
    this.#options.onError?.(error, delay);
    this.#clock.clearTimeout(this.#restartTimer);
    this.#restartTimer = this.#clock.setTimeout(() => {
      if (!this.#stopped) void this.#informer.start();
    }, delay);
  }

  #scheduleResync(): void {
    const { resyncMs } = this.#options;
    if (resyncMs <= 0 || !this.#handlers.some((handlers) => handlers.resync !== undefined)) return;
    this.#resyncTimer = this.#clock.setTimeout(() => {
      if (this.#stopped) return;
      for (const object of this.list()) this.#tell((handlers) => handlers.resync?.(object));
      this.#scheduleResync();
    }, resyncMs);
  }
}

/** One index: each object's key filed under its values, and the values it was filed under, to move it. */
class Index<T> {
  readonly #valuesOf: (object: T) => readonly string[];
  readonly #byValue = new Map<string, Map<string, T>>();
  readonly #filed = new Map<string, readonly string[]>();

  constructor(valuesOf: (object: T) => readonly string[]) {
    this.#valuesOf = valuesOf;
  }

  set(key: string, object: T): void {
    this.remove(key);
    const values = [...new Set(this.#valuesOf(object))];
    this.#filed.set(key, values);
    for (const value of values) {
      let objects = this.#byValue.get(value);
      if (!objects) this.#byValue.set(value, (objects = new Map<string, T>()));
      objects.set(key, object);
    }
  }

  remove(key: string): void {
    for (const value of this.#filed.get(key) ?? []) {
      const objects = this.#byValue.get(value)!;
      objects.delete(key);
      if (objects.size === 0) this.#byValue.delete(value);
    }
    this.#filed.delete(key);
  }

  objects(value: string): T[] {
    return [...(this.#byValue.get(value)?.values() ?? [])];
  }
}

/** Watch events that carry an object (not ERROR, which carries a Status, nor BOOKMARK, a resourceVersion only). */
const OBJECT_EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED']);

class TransformingWatch extends Watch {
  readonly #transform: (object: unknown) => CachedObject | undefined;
  readonly #cached: (object: CachedObject) => CachedObject | undefined;

  constructor(
    kubeConfig: KubeConfig,
    transform: (object: unknown) => CachedObject | undefined,
    cached: (object: CachedObject) => CachedObject | undefined,
  ) {
    super(kubeConfig);
    this.#transform = transform;
    this.#cached = cached;
  }

  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>): ReturnType<Watch['watch']> {
    return super.watch(
      path,
      query,
      (phase, object: unknown, raw: unknown) => {
        const kept = OBJECT_EVENTS.has(phase) ? this.#transform(object) : object;
        if (kept !== undefined) {
          callback(phase, kept, raw);
          return;
        }
        // Kept no more: it leaves the cache as if deleted (the handlers get what was cached), and the
        // watch goes on from this event's resourceVersion.
        const { name, namespace, resourceVersion } = (object as CachedObject).metadata ?? {};
        const last = this.#cached({ metadata: { name, namespace } }) ?? { metadata: { name, namespace } };
        callback('DELETED', { ...last, metadata: { ...last.metadata, resourceVersion } }, raw);
      },
      done,
    );
  }
}

const keyOf = (object: CachedObject) => objectKey(object.metadata ?? {});
