import { createHash } from 'node:crypto';
import { CLAIM_KEY } from './claim.js';
import type { LayerName } from './problems.js';
import { entry } from './records.js';

/**
 * What Keymaster wrote on a resource, kept on the resource itself: one tag per layer whose value
 * holds a fingerprint of each `key=value` Keymaster set from that layer. The removal policy reads it
 * instead of status, which tenants (or a clusterctl move) can rewrite or lose; AWS keeps it with the
 * tags it describes, and only principals that may tag the resource can change it.
 */
export const MEMORY_KEYS: Readonly<Record<LayerName, string>> = {
  Global: 'keymaster.dev/applied-global',
  Account: 'keymaster.dev/applied-account',
  Cluster: 'keymaster.dev/applied-cluster',
};

export const LAYERS: readonly LayerName[] = ['Global', 'Account', 'Cluster'];

/** Keymaster's own tags (the claim and the memory): left out of what events and status report. */
export const isBookkeepingKey = (key: string): boolean => key === CLAIM_KEY || Object.values(MEMORY_KEYS).includes(key);

/** The keys a report names: the layers' keys, or the bookkeeping keys when a write held nothing else. */
export function reportedKeys(keys: readonly string[]): string[] {
  const named = keys.filter((key) => !isBookkeepingKey(key));
  return named.length > 0 ? named : [...keys];
}

/** Fingerprint characters: allowed in tag values everywhere, 64 of them (6 bits each). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-';
/** 4 characters = 24 bits; 64 fingerprints fill a 256-character value, more than a resource's 50 tags. */
const FINGERPRINT_LENGTH = 4;

/** Fingerprints already computed: a fleet repeats the same few tags on every resource. */
const prints = new Map<string, string>();
/** Bounds the memo: a fleet's distinct tags fit many times over; past that it starts again. */
const MAX_PRINTS = 10_000;

/** The fingerprint of one tag, as memory tags hold it. */
export function fingerprint(key: string, value: string): string {
  const tag = `${key}\0${value}`;
  let print = prints.get(tag);
  if (print === undefined) {
    const digest = createHash('sha256').update(tag).digest();
    print = Array.from(digest.subarray(0, FINGERPRINT_LENGTH), (byte) => ALPHABET[byte & 63]).join('');
    if (prints.size >= MAX_PRINTS) prints.clear();
    prints.set(tag, print);
  }
  return print;
}

/** The fingerprints one layer's memory tag holds (empty when the resource has none). */
function recalled(tags: Readonly<Record<string, string>>, layer: LayerName): Set<string> {
  const value = entry(tags, MEMORY_KEYS[layer]) ?? '';
  const prints = new Set<string>();
  for (let at = 0; at + FINGERPRINT_LENGTH <= value.length; at += FINGERPRINT_LENGTH) {
    prints.add(value.slice(at, at + FINGERPRINT_LENGTH));
  }
  return prints;
}

/** A resource's memory, read from its live tags and changed as a plan writes and removes tags. */
export class ResourceMemory {
  readonly #live: Readonly<Record<string, string>>;
  readonly #prints: Map<LayerName, Set<string>>;

  constructor(live: Readonly<Record<string, string>>, prints?: ReadonlyMap<LayerName, ReadonlySet<string>>) {
    this.#live = live;
    this.#prints = new Map(LAYERS.map((layer) => [layer, new Set(prints?.get(layer) ?? recalled(live, layer))]));
  }

  /** An independent copy, to try changes on. */
  copy(): ResourceMemory {
    return new ResourceMemory(this.#live, this.#prints);
  }

  /** The layer whose memory says Keymaster wrote `key=value` here, if any. */
  writer(key: string, value: string): LayerName | undefined {
    const print = fingerprint(key, value);
    return LAYERS.find((layer) => this.#prints.get(layer)!.has(print));
  }

  /** Records that `layer` sets `key` to `to`, replacing whatever `from` value Keymaster wrote before. */
  write(layer: LayerName, key: string, to: string, from?: string): void {
    if (from !== undefined) this.forget(key, from);
    this.#prints.get(layer)!.add(fingerprint(key, to));
  }

  /** Forgets `key=value` (removed, or overwritten) in every layer. */
  forget(key: string, value: string): void {
    const print = fingerprint(key, value);
    for (const prints of this.#prints.values()) prints.delete(print);
  }

  /** The memory tags to set and the ones to remove so that the resource remembers what it now carries. */
  changes(): { set: Record<string, string>; remove: string[] } {
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const layer of LAYERS) {
      const key = MEMORY_KEYS[layer];
      const value = [...this.#prints.get(layer)!].sort().join('');
      const live = entry(this.#live, key);
      if (value === '' && live !== undefined) remove.push(key);
      else if (value !== '' && value !== live) set[key] = value;
    }
    return { set, remove };
  }
}
