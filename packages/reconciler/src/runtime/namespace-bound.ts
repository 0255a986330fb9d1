import { objectKey } from './object-key.js';
/** What the bound needs of an object: who it is and how old. */
export interface BoundedObject {
  metadata?: { name?: string; namespace?: string; uid?: string; creationTimestamp?: string | Date };
}

const ageOf = ({ metadata }: BoundedObject) => {
  const created = metadata?.creationTimestamp;
  return `${created instanceof Date ? created.toISOString() : (created ?? '')}\0${metadata?.uid ?? ''}`;
};

/** The oldest first (creationTimestamp, then UID): the order in which a namespace's objects are served. */
export function byAge(a: BoundedObject, b: BoundedObject): number {
  const [x, y] = [ageOf(a), ageOf(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A list read page by page, admitted as a whole: `add` each object, then `finish`. */
export interface ListAdmission<T> {
  add(object: T): void;
  /** The objects to cache: the served whole, the others as `park` made them. */
  finish(): T[];
}

/**
 * Which objects of each namespace an informer keeps whole: at most `limit` per namespace, the others
 * parked (kept as their metadata only) until a whole one goes. A tenant that creates objects past the
 * limit costs the controller their metadata, whatever their size. Served objects stay served: an object
 * is parked only when it arrives while its namespace is full, or when a list finds more than the limit
 * (then the served ones and the oldest are served).
 */
export class NamespaceBound {
  readonly limit: number;
  #served = new Map<string, Set<string>>();
  /** Parked objects by namespace and key: the oldest is promoted when a served one goes. */
  #parked = new Map<string, Map<string, BoundedObject>>();
  /** Told the namespace's count of parked objects whenever it changes. */
  readonly #parkedChanged: ((namespace: string, parked: number) => void) | undefined;

  constructor(limit: number, parkedChanged?: (namespace: string, parked: number) => void) {
    this.limit = limit;
    this.#parkedChanged = parkedChanged;
  }

  /** Whether the object is served; a new object takes a free place, else it is parked. */
  admit(object: BoundedObject): boolean {
    const { namespace, key } = where(object);
    const served = this.#served.get(namespace) ?? new Set<string>();
    if (served.has(key)) return true;
    if (served.size < this.limit) {
      served.add(key);
      this.#served.set(namespace, served);
      this.#unpark(namespace, key);
      return true;
    }
    const parked = this.#parked.get(namespace) ?? new Map<string, BoundedObject>();
    const size = parked.size;
    parked.set(key, object);
    this.#parked.set(namespace, parked);
    if (parked.size !== size) this.#parkedChanged?.(namespace, parked.size);
    return false;
  }

  /**
   * A list, which holds every object there is: per namespace, those served already and then the oldest
   * are served, up to the limit, the rest parked. Only the chosen are held whole while the list is read.
   */
  startList<T extends BoundedObject>(park: (object: T) => T): ListAdmission<T> {
    // Per namespace, the chosen in order: served already first (they keep their place), then by age.
    const chosen = new Map<string, { rank: string; object: T }[]>();
    const stubs: T[] = [];
    return {
      add: (object) => {
        const { namespace, key } = where(object);
        const rank = `${this.#served.get(namespace)?.has(key) ? 0 : 1}${ageOf(object)}`;
        const kept = chosen.get(namespace) ?? [];
        const at = kept.findIndex((other) => other.rank > rank);
        kept.splice(at < 0 ? kept.length : at, 0, { rank, object });
        chosen.set(namespace, kept);
        if (kept.length > this.limit) stubs.push(park(kept.pop()!.object));
      },
      finish: () => {
        const before = new Set(this.#parked.keys());
        this.#served = new Map(
          [...chosen].map(([namespace, kept]) => [namespace, new Set(kept.map(({ object }) => where(object).key))]),
        );
        this.#parked = new Map();
        for (const stub of stubs) {
          const { namespace, key } = where(stub);
          const parked = this.#parked.get(namespace) ?? new Map<string, BoundedObject>();
          parked.set(key, stub);
          this.#parked.set(namespace, parked);
        }
        for (const namespace of new Set([...before, ...this.#parked.keys()]))
          this.#parkedChanged?.(namespace, this.#parked.get(namespace)?.size ?? 0);
        return [...[...chosen.values()].flat().map(({ object }) => object), ...stubs];
      },
    };
  }

  /** Forgets a deleted object; returns the parked object that takes its place, if any. */
  remove(object: BoundedObject): BoundedObject | undefined {
    const { namespace, key } = where(object);
    this.#unpark(namespace, key);
    const served = this.#served.get(namespace);
    if (!served?.delete(key)) return undefined;
    if (served.size === 0) this.#served.delete(namespace);
    const next = [...(this.#parked.get(namespace)?.values() ?? [])].sort(byAge)[0];
    if (next) this.admit(next);
    return next;
  }

  isParked(object: BoundedObject): boolean {
    const { namespace, key } = where(object);
    return this.#parked.get(namespace)?.has(key) ?? false;
  }

  /** How many objects of the namespace are served and parked. */
  count(namespace: string): { served: number; parked: number } {
    return { served: this.#served.get(namespace)?.size ?? 0, parked: this.#parked.get(namespace)?.size ?? 0 };
  }

  #unpark(namespace: string, key: string): void {
    const parked = this.#parked.get(namespace);
    if (!parked?.delete(key)) return;
    if (parked.size === 0) this.#parked.delete(namespace);
    this.#parkedChanged?.(namespace, parked.size);
  }
}

const where = ({ metadata }: BoundedObject) => ({
  namespace: metadata?.namespace ?? '',
  key: objectKey(metadata ?? {}),
});
