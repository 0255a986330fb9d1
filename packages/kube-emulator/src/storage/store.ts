import { objectAt, type JsonObject, text } from '../util/json.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change of the store, as watches replay and stream it. */
export interface StoreEvent {
  type: EventType;
  storageKey: string;
  resourceVersion: number;
  object: JsonObject;
  /** The object before a MODIFIED or DELETED change (selector-filtered watches need it). */
  previous?: JsonObject;
}

export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

const keyOfObject = (object: JsonObject): string => {
  const metadata = objectAt(object, 'metadata');
  return objectKey(metadata?.namespace as string | undefined, text(metadata?.name));
};

class Collection {
  readonly objects = new Map<string, JsonObject>();
  private sortedKeys: string[] | undefined;

  /** Keys in the order lists return them (namespace, then name), sorted only after keys change. */
  keys(): string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }

  set(key: string, object: JsonObject): void {
    if (!this.objects.has(key)) this.sortedKeys = undefined;
    this.objects.set(key, object);
  }

  delete(key: string): void {
    this.objects.delete(key);
    this.sortedKeys = undefined;
  }
}

/**
 * The in-memory storage: collections of objects under one global, monotonic resourceVersion, and
 * a bounded history of changes for watches that resume from a version.
 */
export class Store {
  private version = 0;
  private readonly collections = new Map<string, Collection>();
  private history: StoreEvent[] = [];
  private readonly listeners = new Set<(event: StoreEvent) => void>();

  constructor(private readonly historyLimit: number) {}

  get resourceVersion(): number {
    return this.version;
  }

  /** The lowest resourceVersion a watch can still resume from. */
  get oldestResumable(): number {
    const first = this.history[0];
    return first ? first.resourceVersion - 1 : this.version;
  }

  get(storageKey: string, namespace: string | undefined, name: string): JsonObject | undefined {
    return this.collections.get(storageKey)?.objects.get(objectKey(namespace, name));
  }

  /** Objects in key order, of one namespace or all, starting after `afterKey` when given. */
  *list(
    storageKey: string,
    namespace?: string,
    afterKey?: string,
    at?: number,
  ): Generator<[key: string, object: JsonObject]> {
    const objects = at === undefined ? this.collections.get(storageKey)?.objects : this.snapshot(storageKey, at);
    if (!objects) return;
    const keys = at === undefined ? this.collections.get(storageKey)!.keys() : [...objects.keys()].sort();
    const prefix = namespace ? `${namespace}/` : '';
    for (const key of keys) {
      if (prefix && !key.startsWith(prefix)) continue;
      if (afterKey !== undefined && key <= afterKey) continue;
      yield [key, objects.get(key)!];
    }
  }

  /** A collection's objects as they were at `resourceVersion`: today's, with the later changes undone. */
  private snapshot(storageKey: string, resourceVersion: number): Map<string, JsonObject> {
    const objects = new Map(this.collections.get(storageKey)?.objects);
    for (const event of (this.eventsSince(resourceVersion) ?? []).reverse()) {
      if (event.storageKey !== storageKey) continue;
      if (event.previous) objects.set(keyOfObject(event.previous), event.previous);
      else objects.delete(keyOfObject(event.object));
    }
    return objects;
  }

  count(storageKey: string): number {
    return this.collections.get(storageKey)?.objects.size ?? 0;
  }

  /** Stores a new or changed object, stamping the next resourceVersion on it. */
  put(storageKey: string, object: JsonObject): JsonObject {
    const key = keyOfObject(object);
    const collection = this.collectionOf(storageKey);
    const previous = collection.objects.get(key);
    const stored = this.stamp(object);
    collection.set(key, stored);
    this.emit({
      type: previous ? 'MODIFIED' : 'ADDED',
      storageKey,
      resourceVersion: this.version,
      object: stored,
      ...(previous ? { previous } : {}),
    });
    return stored;
  }

  /** Removes an object for good; the DELETED event carries it with a new resourceVersion. */
  remove(storageKey: string, object: JsonObject): JsonObject {
    const key = keyOfObject(object);
    const collection = this.collectionOf(storageKey);
    const previous = collection.objects.get(key);
    collection.delete(key);
    const removed = this.stamp(object);
    this.emit({
      type: 'DELETED',
      storageKey,
      resourceVersion: this.version,
      object: removed,
      ...(previous ? { previous } : {}),
    });
    return removed;
  }

  /** Changes after `resourceVersion`, or undefined when they are no longer kept (410 Gone). */
  eventsSince(resourceVersion: number): StoreEvent[] | undefined {
    if (resourceVersion < this.oldestResumable) return undefined;
    let low = 0;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.history[middle]!.resourceVersion > resourceVersion) high = middle;
      else low = middle + 1;
    }
    return this.history.slice(low);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private collectionOf(storageKey: string): Collection {
    let collection = this.collections.get(storageKey);
    if (!collection) this.collections.set(storageKey, (collection = new Collection()));
    return collection;
  }

  private stamp(object: JsonObject): JsonObject {
    this.version++;
    return { ...object, metadata: { ...objectAt(object, 'metadata'), resourceVersion: String(this.version) } };
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    // Trim in batches so the history stays an array without shifting on every write.
    if (this.history.length > this.historyLimit * 1.25) this.history = this.history.slice(-this.historyLimit);
    for (const listener of this.listeners) listener(event);
  }
}
