import type { IdentityKind, IdentityReference } from '@keymaster/api';
import { providerOf, type IdentityObject } from '@keymaster/identity';

/**
 * Which identities read each Secret of the controller's namespace (a static identity's secretRef),
 * kept as identities change: a Secret event then costs the identities that use it.
 */
export class SecretUsers {
  /** Secret name -> kind -> identity names. */
  readonly #users = new Map<string, Map<IdentityKind, Set<string>>>();
  /** What each identity was filed under, to move it when its spec changes. */
  readonly #secretsOf = new Map<IdentityKind, Map<string, readonly string[]>>();

  /** Files an identity added or changed under the Secrets it reads now. */
  set(identity: IdentityObject): void {
    this.remove(identity);
    const { kind } = identity;
    const name = identity.metadata.name ?? '';
    const secrets = providerOf(kind).secrets(identity);
    if (secrets.length === 0) return;
    let names = this.#secretsOf.get(kind);
    if (!names) this.#secretsOf.set(kind, (names = new Map<string, readonly string[]>()));
    names.set(name, secrets);
    for (const secret of secrets) {
      let kinds = this.#users.get(secret);
      if (!kinds) this.#users.set(secret, (kinds = new Map<IdentityKind, Set<string>>()));
      let users = kinds.get(kind);
      if (!users) kinds.set(kind, (users = new Set<string>()));
      users.add(name);
    }
  }

  remove(identity: IdentityObject): void {
    const { kind } = identity;
    const name = identity.metadata.name ?? '';
    const names = this.#secretsOf.get(kind);
    for (const secret of names?.get(name) ?? []) {
      const kinds = this.#users.get(secret);
      const users = kinds?.get(kind);
      users?.delete(name);
      if (users?.size === 0) kinds!.delete(kind);
      if (kinds?.size === 0) this.#users.delete(secret);
    }
    names?.delete(name);
  }

  /** The identities that read the Secret. */
  identitiesUsing(secret: string): IdentityReference[] {
    return [...(this.#users.get(secret) ?? [])].flatMap(([kind, names]) => [...names].map((name) => ({ kind, name })));
  }
}
