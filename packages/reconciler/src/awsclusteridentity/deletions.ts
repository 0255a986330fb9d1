import type { AWSCluster } from '@keymaster/api';
import { groupOf, identityId, type ClusterUser, type IdentityObject } from '@keymaster/identity';
import { clusterKey } from './dependents.js';

/** An AWSCluster as an identity being deleted judges it. */
export const clusterUser = (cluster: AWSCluster): ClusterUser => ({
  key: clusterKey(cluster),
  createdAt: cluster.metadata.creationTimestamp,
});

/**
 * Who used each identity being deleted when this process first saw the deletion, read from the
 * caches then. In memory only: tenants cannot write it. After a restart it is taken again, so a
 * cluster re-pointed at a deleting identity before the restart counts among its users (its creation
 * time must still be older than the deletion).
 */
export class DeletingIdentities {
  readonly #users = new Map<string, { uid: string | undefined; users: ReadonlySet<string> }>();

  /** The users remembered for this very identity (same UID), if any. */
  readonly usersOf = (identity: IdentityObject): ReadonlySet<string> | undefined => {
    const entry = this.#users.get(idOf(identity));
    return entry && entry.uid === identity.metadata.uid ? entry.users : undefined;
  };

  remember(identity: IdentityObject, users: Iterable<string>): ReadonlySet<string> {
    const remembered = new Set(users);
    this.#users.set(idOf(identity), { uid: identity.metadata.uid, users: remembered });
    return remembered;
  }

  /** Forgets an identity (its `identityId`): gone, or not being deleted. */
  forget(id: string): void {
    this.#users.delete(id);
  }
}

// CAPA's identity of a Keymaster identity's name is another identity: its deletion is not this one's.
const idOf = (identity: IdentityObject) =>
  identityId(identity.kind, identity.metadata.name ?? '', identity.metadata.namespace, groupOf(identity));

/** What a current user of identities being deleted (`Kind/name`) is told, in a condition and an event. */
export const deletingNotice = (ids: readonly string[]): string =>
  `Being deleted: ${ids.join(', ')}. An identity being deleted still serves the AWSClusters that used it ` +
  'before, this one included, accepts no new ones, and goes once none uses it: point spec.identityRef at ' +
  'another identity (ask the platform team which).';
