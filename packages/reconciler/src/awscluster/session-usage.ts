import type { IdentitySession } from '@keymaster/identity';

/** What the controller last saw of the sessions of the identities clusters use directly. */
export interface IdentitySighting {
  accountId: string;
  principalArn: string;
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

  use(cluster: string, session: IdentitySession): void {
    this.release(cluster);
    this.#sessionOf.set(cluster, session.key);
    let clusters = this.#clustersOf.get(session.key);
    if (!clusters) this.#clustersOf.set(session.key, (clusters = new Set()));
    clusters.add(cluster);
    const own = session.chain[0];
    if (own)
      this.#sightings.set(`${own.kind}/${own.name}`, {
        accountId: session.accountId,
        principalArn: session.principalArn,
        renewedAt: session.renewedAt(),
      });
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
}
