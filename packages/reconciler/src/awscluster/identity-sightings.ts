import { identityId, type IdentitySession } from '@keymaster/identity';
import type { IdentityAt } from '../awsclusteridentity/identity-at.js';

/** What the controller last saw of the sessions of the identities clusters use directly. */
export interface IdentitySighting {
  accountId: string;
  principalArn: string;
  /** The latest renewal among the identity's sessions (a web identity has one per namespace). */
  renewedAt: Date | undefined;
}

/**
 * What the sessions of identities clusters use directly looked like, for the identities' status.
 * (Which cluster acts with which credential set the resolver keeps: its holders.)
 */
export class IdentitySightings {
  readonly #sightings = new Map<string, IdentitySighting>();

  /**
   * @param sightingChanged called when an identity's sighting changes (a new session, a renewal), so
   *   that its status is written then, and not by the next periodic resync of identities.
   */
  constructor(private readonly sightingChanged: (identity: IdentityAt) => void) {}

  /**
   * A cluster of `namespace` acts with `session`: its own identity's sighting is updated. CAPA's
   * identities have no status here (read, never written): their sightings are not kept.
   */
  saw(session: IdentitySession, namespace: string): void {
    const own = session.chain[0];
    if (own && !own.apiGroup) this.#sight({ kind: own.kind, name: own.name, namespace }, session);
  }

  /** The sighting of an identity by its `identityId`. */
  sighting(identity: string): IdentitySighting | undefined {
    return this.#sightings.get(identity);
  }

  #sight(identity: IdentityAt, session: IdentitySession): void {
    const id = identityId(identity.kind, identity.name, identity.namespace);
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
