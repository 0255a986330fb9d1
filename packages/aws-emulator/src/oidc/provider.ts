import type { JsonWebKey } from 'node:crypto';
import type { OidcProviderSpec } from '../world/types.js';
import { fetchJson, FetchFailure } from './fetch.js';
import { issuerHostPath, providerArn } from './names.js';

type Key = JsonWebKey & { kid?: string };

const keysOf = (jwks: unknown): Key[] => {
  const keys = (jwks as { keys?: unknown } | undefined)?.keys;
  return Array.isArray(keys) ? keys.filter((key): key is Key => typeof key === 'object' && key !== null) : [];
};

/**
 * An IAM OIDC identity provider of one account: its issuer, audiences, and the keys that sign its
 * tokens: given in the world, or read from the issuer's discovery document and `jwks_uri` on first use
 * and again when a token names a key ID not seen yet (key rotation).
 */
export class OidcProvider {
  readonly arn: string;
  readonly url: string;
  /** The issuer without `https://`: the prefix of the `:sub` and `:aud` condition keys. */
  readonly hostPath: string;
  readonly clientIds: readonly string[];
  #keys: Key[] | undefined;

  constructor(
    accountId: string,
    private readonly spec: OidcProviderSpec,
  ) {
    this.arn = providerArn(accountId, spec.url);
    this.url = spec.url;
    this.hostPath = issuerHostPath(spec.url);
    this.clientIds = spec.clientIds;
    if (spec.jwks !== undefined) this.#keys = keysOf(spec.jwks);
  }

  /** The keys that may have signed a token with this key ID (all of them when it names none); FetchFailure when unreachable. */
  async keysFor(kid: string | undefined): Promise<Key[]> {
    const matching = (keys: Key[]) => keys.filter((key) => kid === undefined || key.kid === kid);
    if (this.#keys && (matching(this.#keys).length > 0 || this.spec.jwks !== undefined)) return matching(this.#keys);
    this.#keys = await this.#fetch();
    return matching(this.#keys);
  }

  async #fetch(): Promise<Key[]> {
    const discovery = this.spec.discovery ?? {};
    const ca = discovery.ca === undefined ? {} : { ca: discovery.ca };
    const document = await fetchJson(discovery.url ?? `${this.url}/.well-known/openid-configuration`, ca);
    const jwksUri = (document as { jwks_uri?: unknown } | undefined)?.jwks_uri;
    if (typeof jwksUri !== 'string') throw new FetchFailure('the discovery document has no jwks_uri');
    const keys = keysOf(await fetchJson(jwksUri, { ...ca, thumbprints: this.spec.thumbprints ?? [] }));
    if (keys.length === 0) throw new FetchFailure(`${jwksUri} lists no keys`);
    return keys;
  }
}
