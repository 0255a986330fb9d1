import { createHash } from 'node:crypto';
import { TAG_LAYERS, type LedgerMemoryGroup } from '@keymaster/api';
import type { LayerName } from './problems.js';

export const LAYERS: readonly LayerName[] = TAG_LAYERS;

/** What Keymaster wrote on one resource, per layer, as the ledger keeps it (its fields, resources aside). */
export type ResourcePrints = Omit<LedgerMemoryGroup, 'resources'>;

/** The field of `ResourcePrints` (and of the ledger) of each layer. */
export const PRINT_FIELDS = {
  Global: 'global',
  Selected: 'selected',
  Account: 'account',
  Cluster: 'cluster',
} as const satisfies Record<LayerName, keyof ResourcePrints>;

/** Digest characters: allowed in tag values and Kubernetes fields everywhere, 64 of them (6 bits each). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-';

/** The first `length` characters of SHA-256 of `text`, 6 bits each. */
const digest = (text: string, length: number): string =>
  Array.from(createHash('sha256').update(text).digest().subarray(0, length), (byte) => ALPHABET[byte & 63]).join('');

/**
 * 12 characters = 72 bits: a tenant that chooses the values of its cluster layer cannot find one whose
 * fingerprint is another tool's `key=value` (24 bits, what the memory tags of releases up to 0.2.0
 * held, take a second of brute force). Those are the first 4 characters of these.
 */
const FINGERPRINT_LENGTH = 12;

/**
 * Fingerprints already computed, by key, then value: a fleet repeats the same few tags on every
 * resource, and a lookup by the two strings builds no string of its own.
 */
const prints = new Map<string, Map<string, string>>();
/** How many fingerprints `prints` holds. */
let printCount = 0;
/** Bounds the memo: a fleet's distinct tags fit many times over; past that it starts again. */
const MAX_PRINTS = 10_000;

/** The fingerprint of one tag, as the ledger holds it. */
export function fingerprint(key: string, value: string): string {
  let values = prints.get(key);
  let print = values?.get(value);
  if (print === undefined) {
    print = digest(`${key}\0${value}`, FINGERPRINT_LENGTH);
    if (printCount >= MAX_PRINTS) {
      prints.clear();
      printCount = 0;
      values = undefined;
    }
    if (values === undefined) {
      values = new Map();
      prints.set(key, values);
    }
    values.set(value, print);
    printCount += 1;
  }
  return print;
}

/** A resource as the ledger names it: 16 characters (96 bits) of SHA-256 of its ARN. */
export const resourceDigest = (arn: string): string => digest(arn, 16);

/** A resource's memory: the fingerprints of what Keymaster wrote there, per layer, changed as a plan writes and removes tags. */
export class ResourceMemory {
  readonly #prints: Map<LayerName, Set<string>>;

  constructor(prints: ResourcePrints = {}) {
    this.#prints = new Map(LAYERS.map((layer) => [layer, new Set(prints[PRINT_FIELDS[layer]] ?? [])]));
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
    for (const layerPrints of this.#prints.values()) layerPrints.delete(print);
  }

  /** Adds what `other` remembers. */
  merge(other: ResourceMemory): void {
    for (const layer of LAYERS) for (const print of other.#prints.get(layer)!) this.#prints.get(layer)!.add(print);
  }

  /** The fingerprints, sorted, per layer that has any. */
  prints(): ResourcePrints {
    const found: ResourcePrints = {};
    for (const layer of LAYERS) {
      const layerPrints = [...this.#prints.get(layer)!].sort();
      if (layerPrints.length > 0) found[PRINT_FIELDS[layer]] = layerPrints;
    }
    return found;
  }

  get empty(): boolean {
    return LAYERS.every((layer) => this.#prints.get(layer)!.size === 0);
  }
}
