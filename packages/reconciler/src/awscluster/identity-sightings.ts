import type { IdentitySession, LinkName } from '@keymaster/identity';

/** What the controller last saw of the sessions of the identities clusters use directly. */
export interface IdentitySighting {
  accountId: string;
  principalArn: string;
  /** The latest renewal among the identity's sessions (a web identity has one per namespace). */
  renewedAt: Date | undefined;
}

/**
 * Which cluster acts with which credential set, so that deleting the last cluster of a set evicts
 * its cached clients, and what identities' sessions looked like, for their status.
 */
export class SessionUsage {
  readonly #sessionOf = new Map<string, string>();
  readonly #clustersOf = new Map<string, Set<string>>();
  readonly #sightings = new Map<string, IdentitySighting>();

  /**
   * @param sightingChanged called when an identity's sighting changes (a new session, a renewal), so
   *   that its status is written then, and not by the next periodic resync of identities.
   */
  constructor(private readonly sightingChanged: (identity: LinkName) => void) {}

  use(cluster: string, session: IdentitySession): void {
    this.release(cluster);
    this.#sessionOf.set(cluster, session.key);
    let clusters = this.#clustersOf.get(session.key);
    if (!clusters) this.#clustersOf.set(session.key, (clusters = new Set()));
    clusters.add(cluster);
    const own = session.chain[0];
    if (own) this.#sight(own, session);
  }

  /** Forgets the cluster; returns the key of its credential set when no other cluster uses it any more. */
  release(cluster: string): string | undefined {
    const key = this.#sessionOf.get(cluster);
    if (key === undefined) return undefined;
    this.#sessionOf.delete(cluster);
    const clusters = this.#clustersOf.get(key)!;
    clusters.delete(cluster);
    if (clusters.size > 0) return undefined;
    this.#clustersOf.delete(key);
    return key;
  }

  sighting(identity: string): IdentitySighting | undefined {
    return this.#sightings.get(identity);
  }

  #sight(identity: LinkName, session: IdentitySession): void {
    const id = `${identity.kind}/${identity.name}`;
    const before = this.#sightings.get(id);
    const samePrincipal = before?.accountId === session.accountId && before.principalArn === session.principalArn;
    // Sessions of one principal seen in turn (a web identity's namespaces) would otherwise move it back and forth.
    const renewedAt = samePrincipal ? latest(before.renewedAt, session.renewedAt()) : session.renewedAt();
    if (samePrincipal && renewedAt?.getTime() === before.renewedAt?.getTime()) return;
    this.#sightings.set(id, { accountId: session.accountId, principalArn: session.principalArn, renewedAt });
    this.sightingChanged(identity);
  }
}

const latest = (a: Date | undefined, b: Date | undefined): Date | undefined => (!a || (b && b > a) ? b : a);
