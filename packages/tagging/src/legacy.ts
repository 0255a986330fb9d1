import { createHash } from 'node:crypto';
import { fingerprint, ResourceMemory, PRINT_FIELDS, type ResourcePrints } from './memory.js';
import { ownershipOf } from './ownership.js';
import type { LayerName } from './problems.js';
import { entry } from './records.js';

/**
 * The bookkeeping tags releases up to 0.2.0 wrote on each resource: which AWSCluster owns the cluster
 * name (a digest of its `namespace/name`) and, per layer, 4-character fingerprints of the key=value
 * pairs Keymaster wrote. Any AWS principal allowed to tag could forge them, so they are read once per
 * cluster, to convert them into its AWSClusterLedger, and removed; after that they mean nothing.
 */
export const LEGACY_CLAIM_KEY = 'keymaster.dev/claim';
/** The layers those releases knew (selected policies came later). */
const LEGACY_LAYERS = ['Global', 'Account', 'Cluster'] as const satisfies readonly LayerName[];
export const LEGACY_MEMORY_KEYS: Readonly<Record<(typeof LEGACY_LAYERS)[number], string>> = {
  Global: 'keymaster.dev/applied-global',
  Account: 'keymaster.dev/applied-account',
  Cluster: 'keymaster.dev/applied-cluster',
};
export const LEGACY_KEYS: readonly string[] = [
  LEGACY_CLAIM_KEY,
  ...LEGACY_LAYERS.map((layer) => LEGACY_MEMORY_KEYS[layer]),
];

/** The fingerprints of those releases: 24 bits, the first 4 characters of today's. */
const LEGACY_PRINT_LENGTH = 4;

/** Keys under keymaster.dev/: Keymaster's own bookkeeping once, written by nobody it trusts now. */
export const isKeymasterKey = (key: string): boolean => key.startsWith('keymaster.dev/');

/** The legacy claim tag value of the AWSCluster `namespace/name`. */
export const legacyClaimOf = (namespace: string, name: string): string =>
  createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 32);

/** The legacy claim values on the resources that carry this cluster name's ownership tag. */
export function legacyClaimsFound(
  resources: Readonly<Record<string, Readonly<Record<string, string>>>>,
  clusterName: string,
): Set<string> {
  const found = new Set<string>();
  for (const tags of Object.values(resources)) {
    const claim = entry(tags, LEGACY_CLAIM_KEY);
    if (claim !== undefined && ownershipOf(tags, clusterName) !== 'None') found.add(claim);
  }
  return found;
}

/**
 * What a resource's legacy memory tags say Keymaster wrote, for the key=value pairs the resource
 * carries now: each live pair whose 4-character fingerprint a layer's tag holds is remembered, with
 * its full fingerprint, for that layer.
 */
export function legacyMemory(live: Readonly<Record<string, string>>): ResourceMemory {
  const held = new Map(
    LEGACY_LAYERS.map((layer) => [layer, legacyPrints(entry(live, LEGACY_MEMORY_KEYS[layer]) ?? '')]),
  );
  const prints: ResourcePrints = {};
  for (const [key, value] of Object.entries(live)) {
    if (isKeymasterKey(key)) continue;
    const print = fingerprint(key, value);
    for (const layer of LEGACY_LAYERS) {
      if (!held.get(layer)!.has(print.slice(0, LEGACY_PRINT_LENGTH))) continue;
      const field = PRINT_FIELDS[layer];
      prints[field] = [...(prints[field] ?? []), print];
    }
  }
  return new ResourceMemory(prints);
}

function legacyPrints(value: string): Set<string> {
  const found = new Set<string>();
  for (let at = 0; at + LEGACY_PRINT_LENGTH <= value.length; at += LEGACY_PRINT_LENGTH)
    found.add(value.slice(at, at + LEGACY_PRINT_LENGTH));
  return found;
}

/**
 * Keys under keymaster.dev/ on the resources the cluster tags that are not converted now: Keymaster
 * writes no tag of its own, so whoever wrote them, they are ignored (never read, never removed). Sorted.
 */
export function ignoredKeymasterKeys(
  resources: Readonly<Record<string, Readonly<Record<string, string>>>>,
  options: { clusterName: string; includeShared: boolean; convertLegacy: boolean },
): string[] {
  const keys = new Set<string>();
  for (const tags of Object.values(resources)) {
    const ownership = ownershipOf(tags, options.clusterName);
    if (ownership === 'None' || (ownership === 'Shared' && !options.includeShared)) continue;
    for (const key of Object.keys(tags))
      if (isKeymasterKey(key) && !(options.convertLegacy && LEGACY_KEYS.includes(key))) keys.add(key);
  }
  return [...keys].sort();
}

/** The keys a report names: the layers' keys, or the legacy keys when a write held nothing else. */
export function reportedKeys(keys: readonly string[]): string[] {
  const named = keys.filter((key) => !LEGACY_KEYS.includes(key));
  return named.length > 0 ? named : [...keys];
}
