import { CLUSTER_NAME_TAG_KEYS, ownershipTagKeys } from '@keymaster/api';
import { foldKey } from './key-fold.js';
import { entry } from './records.js';

// The keys without a cluster name: `sigs.k8s.io/cluster-api-provider-aws/cluster/`, `kubernetes.io/cluster/`.
const OWNERSHIP_PREFIXES = ownershipTagKeys('');
const FOLDED_PREFIXES = OWNERSHIP_PREFIXES.map(foldKey);
const FOLDED_NAME_KEYS = CLUSTER_NAME_TAG_KEYS.map(foldKey);

/**
 * Whether a key tells which cluster a resource belongs to (an ownership tag of any cluster, or a key
 * whose value names the cluster), in any case (as IAM reads it): Keymaster never writes or removes those.
 */
export const isOwnershipKey = (key: string): boolean =>
  FOLDED_PREFIXES.some((prefix) => foldKey(key).startsWith(prefix)) || FOLDED_NAME_KEYS.includes(foldKey(key));

/** How a resource belongs to a cluster, read from its ownership tags. */
export type Ownership = 'Owned' | 'Shared' | 'None';

/**
 * `Shared` when any of the cluster's ownership tags says `shared`; `Owned` when one says `owned`, or
 * a key of `CLUSTER_NAME_TAG_KEYS` holds the cluster's name. Keys and names match exactly, in case
 * too: EKS names differing only in case are two clusters, and AWS stores their keys apart.
 */
export function ownershipOf(tags: Readonly<Record<string, string>>, clusterName: string): Ownership {
  const values = ownershipTagKeys(clusterName).map((key) => entry(tags, key));
  if (values.includes('shared')) return 'Shared';
  const named = CLUSTER_NAME_TAG_KEYS.some((key) => entry(tags, key) === clusterName);
  return values.includes('owned') || named ? 'Owned' : 'None';
}

/** One GetResources TagFilter: the key, and the values that match. */
export interface OwnershipFilter {
  key: string;
  values: readonly string[];
}

/**
 * What finds a cluster's resources, one GetResources query each (AWS ANDs the filters of a query, so
 * one query cannot ask for either): each ownership key with one of `values` (`owned`, and `shared`
 * where asked), each key of `CLUSTER_NAME_TAG_KEYS` with the cluster's name. Values match exactly,
 * never as a prefix: `prod` finds nothing of `prod-2`.
 */
export const ownershipFilters = (clusterName: string, values: readonly string[]): OwnershipFilter[] => [
  ...ownershipTagKeys(clusterName).map((key) => ({ key, values })),
  ...CLUSTER_NAME_TAG_KEYS.map((key) => ({ key, values: [clusterName] })),
];

/** Whether the tags match one of the filters, as GetResources would: keys and values exactly. */
export const matchesAny = (tags: Readonly<Record<string, string>>, filters: readonly OwnershipFilter[]): boolean =>
  filters.some(({ key, values }) => {
    const value = entry(tags, key);
    return value !== undefined && values.includes(value);
  });

/**
 * The cluster names a resource's tags speak of, exactly as written: the names in its ownership keys
 * (whatever their value) and the values of its `CLUSTER_NAME_TAG_KEYS`.
 */
export function clusterNamesIn(tags: Readonly<Record<string, string>>): Set<string> {
  const names = new Set<string>();
  for (const key of Object.keys(tags)) {
    const prefix = OWNERSHIP_PREFIXES.find((start) => key.startsWith(start));
    if (prefix !== undefined) names.add(key.slice(prefix.length));
    else if (CLUSTER_NAME_TAG_KEYS.includes(key)) names.add(tags[key]!);
  }
  return names;
}

/** The clusters that own a resource (`ownershipOf` says `Owned`), sorted. */
export const ownersOf = (tags: Readonly<Record<string, string>>): string[] =>
  [...clusterNamesIn(tags)].filter((name) => ownershipOf(tags, name) === 'Owned').sort();
