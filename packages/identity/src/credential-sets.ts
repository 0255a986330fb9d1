/** What the store needs of a credential set: its key, and the set its credentials are made from. */
export interface ChainedSet<S> {
  key: string;
  source?: S | undefined;
}

/** How many sets a namespace's objects pin (each counted once), and how many unpinned sets are kept for it. */
export interface NamespaceSets {
  pinned: number;
  unpinned: number;
}

export interface CredentialSetsOptions<S> {
  /** Sets kept per namespace that nothing pins (for the next resolve, or a failure to share): the least recently used go first. */
  maxUnpinnedPerNamespace: number;
  /** A set left the store: drop what was built on it (its clients). */
  evicted(set: S): void;
  /** `namespace`'s LRU dropped one of its unpinned sets for room (the bound is below what the namespace uses). */
  evictedForRoom?(namespace: string): void;
  /** What `countsOf(namespace)` answers has changed. */
  changed?(namespace: string): void;
}

/**
 * The credential sets, kept by who uses them rather than by one shared LRU, so that no namespace can
 * evict another's. A holder (an AWSCluster, an AWSCredentialsRequest) pins the set it acts with, and
 * so every set of its chain: pinned sets are never evicted for room. A set nothing pins is kept for the
 * namespace that used it last, in that namespace's own LRU; a namespace that makes many sets evicts
 * only its own. Sets stay shared: a hub's set pinned by clusters of ten namespaces is one set.
 */
export class CredentialSets<S extends ChainedSet<S>> {
  readonly #sets = new Map<string, S>();
  /** How many holders' chains hold each key. */
  readonly #pins = new Map<string, number>();
  readonly #holders = new Map<string, { namespace: string; key: string; chain: string[] }>();
  /** Per namespace, the keys its holders act with, and how many of them each. */
  readonly #pinnedBy = new Map<string, Map<string, number>>();
  /** Per namespace, its unpinned sets, least recently used first. */
  readonly #unpinned = new Map<string, Set<string>>();
  /** The namespace whose LRU holds each unpinned set. */
  readonly #home = new Map<string, string>();

  constructor(private readonly options: CredentialSetsOptions<S>) {}

  get size(): number {
    return this.#sets.size;
  }

  all(): IterableIterator<S> {
    return this.#sets.values();
  }

  /** The set of `key`, used now by a resolve of `namespace` (an unpinned set moves to that namespace's LRU). */
  get(key: string, namespace: string): S | undefined {
    const set = this.#sets.get(key);
    if (set && !this.#pins.has(key)) this.#keepUnpinned(key, namespace);
    return set;
  }

  /** A new set made by a resolve of `namespace`: unpinned until a holder pins it. */
  add(set: S, namespace: string): void {
    this.#sets.set(set.key, set);
    if (!this.#pins.has(set.key)) this.#keepUnpinned(set.key, namespace);
  }

  /** `holder`, of `namespace`, acts with `set` now: its chain stays cached, and what the holder used before is released. */
  pin(holder: string, namespace: string, set: S): void {
    const before = this.#holders.get(holder);
    if (before?.key === set.key) return;
    const chain: string[] = [];
    for (let link: S | undefined = set; link; link = link.source) {
      chain.push(link.key);
      // A set evicted while the resolve that made it was in flight comes back with its holder.
      if (!this.#sets.has(link.key)) this.#sets.set(link.key, link);
      this.#pins.set(link.key, (this.#pins.get(link.key) ?? 0) + 1);
      this.#leaveUnpinned(link.key);
    }
    this.#holders.set(holder, { namespace, key: set.key, chain });
    const pinned = this.#pinnedBy.get(namespace) ?? new Map<string, number>();
    this.#pinnedBy.set(namespace, pinned);
    pinned.set(set.key, (pinned.get(set.key) ?? 0) + 1);
    this.options.changed?.(namespace);
    if (before) this.#unpin(holder, before);
  }

  /** `holder` acts with no set any more (deleted, refused): its chain is kept unpinned, for its namespace. */
  release(holder: string): void {
    const held = this.#holders.get(holder);
    if (held) this.#unpin(holder, held);
  }

  /** Drops the sets that match (what they were made of changed or is gone), pinned or not. */
  deleteWhere(matches: (set: S) => boolean): void {
    for (const [key, set] of [...this.#sets]) if (matches(set)) this.#drop(key);
  }

  clear(): void {
    for (const key of [...this.#sets.keys()]) this.#drop(key);
    this.#pins.clear();
    this.#holders.clear();
    this.#pinnedBy.clear();
  }

  countsOf(namespace: string): NamespaceSets {
    return { pinned: this.#pinnedBy.get(namespace)?.size ?? 0, unpinned: this.#unpinned.get(namespace)?.size ?? 0 };
  }

  #unpin(holder: string, held: { namespace: string; key: string; chain: string[] }): void {
    if (this.#holders.get(holder) === held) this.#holders.delete(holder);
    const pinned = this.#pinnedBy.get(held.namespace)!;
    const holders = pinned.get(held.key)! - 1;
    if (holders > 0) pinned.set(held.key, holders);
    else pinned.delete(held.key);
    if (pinned.size === 0) this.#pinnedBy.delete(held.namespace);
    // The set first, its sources after: a source outlives, in the LRU, the sets made from it.
    for (const key of held.chain) {
      const pins = this.#pins.get(key)! - 1;
      if (pins > 0) {
        this.#pins.set(key, pins);
        continue;
      }
      this.#pins.delete(key);
      if (this.#sets.has(key)) this.#keepUnpinned(key, held.namespace);
    }
    this.options.changed?.(held.namespace);
  }

  /** Puts an unpinned set last in `namespace`'s LRU, evicting that namespace's least recently used beyond the bound. */
  #keepUnpinned(key: string, namespace: string): void {
    const home = this.#home.get(key);
    if (home !== undefined) this.#unpinned.get(home)!.delete(key);
    const lru = this.#unpinned.get(namespace) ?? new Set<string>();
    this.#unpinned.set(namespace, lru);
    lru.add(key);
    this.#home.set(key, namespace);
    for (const oldest of lru) {
      if (lru.size <= this.options.maxUnpinnedPerNamespace) break;
      this.#drop(oldest);
      this.options.evictedForRoom?.(namespace);
    }
    if (home !== undefined && home !== namespace) this.#forgetEmpty(home);
    this.options.changed?.(namespace);
  }

  #leaveUnpinned(key: string): void {
    const home = this.#home.get(key);
    if (home === undefined) return;
    this.#home.delete(key);
    this.#unpinned.get(home)!.delete(key);
    this.#forgetEmpty(home);
    this.options.changed?.(home);
  }

  #forgetEmpty(namespace: string): void {
    if (this.#unpinned.get(namespace)?.size === 0) this.#unpinned.delete(namespace);
  }

  #drop(key: string): void {
    const set = this.#sets.get(key);
    if (!set) return;
    this.#sets.delete(key);
    this.#leaveUnpinned(key);
    this.options.evicted(set);
  }
}
