import type { IdentityObject } from './store.js';

/** The AWSCluster a chain is resolved for, as an identity being deleted needs to know it. */
export interface ClusterUser {
  /** `namespace/name`. */
  key: string;
  /** Its metadata.creationTimestamp. */
  createdAt: string | undefined;
}

/** Who used an identity being deleted when the controller first saw the deletion; undefined when it does not remember. */
export type UsersAtDeletion = (identity: IdentityObject) => ReadonlySet<string> | undefined;

/**
 * Whether an identity serves a cluster, as far as its deletion goes. Not being deleted: yes. Being
 * deleted: only a cluster created no later than the deletion began (both times have a second's
 * precision, so the same second counts as before) and, when the controller remembers who used the
 * identity then, one of those. So no cluster can adopt an identity being deleted and keep it alive;
 * its users keep working until they move.
 */
export function servesCluster(
  identity: IdentityObject,
  cluster: ClusterUser,
  usersAtDeletion: ReadonlySet<string> | undefined,
): boolean {
  const deletedAt = identity.metadata.deletionTimestamp;
  if (!deletedAt) return true;
  if (!cluster.createdAt || !(Date.parse(cluster.createdAt) <= Date.parse(deletedAt))) return false;
  return usersAtDeletion?.has(cluster.key) ?? true;
}
