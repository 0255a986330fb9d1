import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../util/json.js';
import { parseJwt, signJwt, verifiesWith, type ParsedJwt } from './jwt.js';
import { generateSigningKey, type SigningKey } from './signing-key.js';

/** Where the keys of the issuer are published, as kube-apiserver serves them. */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** kube-apiserver's `--service-account-*` and `--api-audiences` settings. */
export interface IssuerSettings {
  /** `--service-account-issuer`: the `iss` of the tokens. */
  issuer: string;
  /** `--service-account-jwks-uri`: where the discovery document says the keys are. */
  jwksUri: string;
  /** `--api-audiences`: the audiences a token must have to act on the API server itself (and TokenRequest's default). */
  apiAudiences: string[];
  /** `--service-account-max-token-expiration`, in seconds: longer requests are shortened to it. */
  maxExpirationSeconds?: number;
  /** The time tokens are issued at, in milliseconds (the wall clock unless a test moves it, with the aws-emulator's). */
  now: () => number;
}

/** What the signature and envelope checks say about a bearer token, before the validator looks at the cluster. */
export type SignatureCheck =
  { kind: 'other' } | { kind: 'refused'; error: string } | { kind: 'signed'; claims: JsonObject; audiences: string[] };

/** Go's `%q` of a []string: `["a" "b"]`. */
const quotedList = (values: string[]): string => `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? [value]
      : [];

/**
 * The service-account token issuer of kube-apiserver: an RSA key made on first use (node:crypto),
 * RS256 JWTs with go-jose's layout, the signature and audience checks of its JWT authenticator,
 * and the OIDC discovery documents.
 */
export class ServiceAccountIssuer {
  #key: SigningKey | undefined;

  constructor(readonly settings: IssuerSettings) {}

  get key(): SigningKey {
    return (this.#key ??= generateSigningKey());
  }

  /** Signs the claims, with `iss` set as go-jose's last claims set does. */
  sign(claims: JsonObject): string {
    return signJwt({ ...claims, iss: this.settings.issuer, jti: randomUUID() }, this.key);
  }

  /**
   * jwtTokenAuthenticator's checks: a JWT whose unverified `iss` is not ours is someone else's; then
   * the key ID, the signature, and the audiences (a token without any has the API server's) against
   * those asked for, keeping the ones asked for in their order.
   */
  check(token: string, requested: string[]): SignatureCheck {
    const jwt = parseJwt(token);
    if (!jwt || jwt.claims.iss !== this.settings.issuer) return { kind: 'other' };
    const kid = typeof jwt.header.kid === 'string' ? jwt.header.kid : '';
    if (kid !== '' && kid !== this.key.kid) return { kind: 'refused', error: 'invalid signature, no keys found' };
    if (!verified(jwt, this.key))
      return { kind: 'refused', error: 'go-jose/go-jose: error in cryptographic primitive' };
    const tokenAudiences = stringsOf(jwt.claims.aud);
    const own = tokenAudiences.length > 0 ? tokenAudiences : this.settings.apiAudiences;
    const audiences = requested.filter((audience) => own.includes(audience));
    if (audiences.length === 0) {
      const error = `token audiences ${quotedList(own)} is invalid for the target audiences ${quotedList(requested)}`;
      return { kind: 'refused', error };
    }
    return { kind: 'signed', claims: jwt.claims, audiences };
  }

  /** Whether kube-apiserver would serve discovery: only for an https issuer without query or fragment. */
  get discoveryServed(): boolean {
    try {
      const url = new URL(this.settings.issuer);
      return url.protocol === 'https:' && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }

  /** `/.well-known/openid-configuration`, its fields in kube-apiserver's order. */
  openIdConfiguration(): JsonObject {
    return {
      issuer: this.settings.issuer,
      jwks_uri: this.settings.jwksUri,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }

  /** `/openid/v1/jwks`. */
  jwks(): JsonObject {
    return { keys: [{ ...this.key.jwk } as JsonObject] };
  }
}

const verified = (jwt: ParsedJwt, key: SigningKey): boolean => {
  try {
    return verifiesWith(jwt, key.publicKey);
  } catch {
    return false;
  }
};
