import { sign, verify, type KeyObject } from 'node:crypto';
import { goMapJson } from '../../util/go-format.js';
import { isObject, type JsonObject } from '../../util/json.js';

/** A compact JWS split into its parts; the header and claims are read but nothing is verified yet. */
export interface ParsedJwt {
  readonly header: JsonObject;
  readonly claims: JsonObject;
  readonly signingInput: string;
  readonly signature: Buffer;
}

// go-jose merges the claims into maps: json.Marshal sorts their keys.
const segment = (value: JsonObject): string => Buffer.from(goMapJson(value)).toString('base64url');

/** An RS256 compact JWS, `{"alg":"RS256","kid":...}` as go-jose writes it. */
export function signJwt(claims: JsonObject, key: { kid: string; privateKey: KeyObject }): string {
  const signingInput = `${segment({ alg: 'RS256', kid: key.kid })}.${segment(claims)}`;
  return `${signingInput}.${sign('RSA-SHA256', Buffer.from(signingInput), key.privateKey).toString('base64url')}`;
}

function decodeSegment(part: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The parts of a compact JWS, or undefined when it is not one (three base64url parts, JSON header and claims). */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]*$/.test(part))) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  const header = decodeSegment(head);
  const claims = decodeSegment(body);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') };
}

/** Whether an RS256 signature over the JWS holds for this public key. */
export const verifiesWith = (jwt: ParsedJwt, publicKey: KeyObject): boolean =>
  jwt.header.alg === 'RS256' && verify('RSA-SHA256', Buffer.from(jwt.signingInput), publicKey, jwt.signature);
