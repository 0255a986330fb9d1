import { ownershipTagKeys } from '@keymaster/api';
import { foldKey } from './key-fold.js';
import { entry } from './records.js';

// The keys without a cluster name: `sigs.k8s.io/cluster-api-provider-aws/cluster/`, `kubernetes.io/cluster/`.
const OWNERSHIP_PREFIXES = ownershipTagKeys('').map(foldKey);

/**
 * Whether a key is an ownership tag of any cluster, in any case (as IAM reads it): Keymaster never
 * writes or removes those.
 */
export const isOwnershipKey = (key: string): boolean =>
  OWNERSHIP_PREFIXES.some((prefix) => foldKey(key).startsWith(prefix));

/** How a resource belongs to a cluster, read from its ownership tags. */
export type Ownership = 'Owned' | 'Shared' | 'None';

/** `Shared` when any of the cluster's ownership tags says `shared`, `Owned` when one says `owned`. */
export function ownershipOf(tags: Readonly<Record<string, string>>, clusterName: string): Ownership {
  const values = ownershipTagKeys(clusterName).map((key) => entry(tags, key));
  if (values.includes('shared')) return 'Shared';
  return values.includes('owned') ? 'Owned' : 'None';
}
