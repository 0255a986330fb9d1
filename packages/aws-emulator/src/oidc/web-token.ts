import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';

/** A JWT as AssumeRoleWithWebIdentity reads it: header and claims decoded, nothing verified yet. */
export interface WebToken {
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function decode(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The compact JWS's parts, or undefined when it is not one (three base64url parts, JSON header and claims). */
export function parseWebToken(token: string): WebToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  const header = decode(head);
  const claims = decode(body);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') };
}

/** Whether the token's RS256 signature holds for this RSA key (a JWK). */
export function signedBy(token: WebToken, key: JsonWebKey): boolean {
  try {
    const publicKey = createPublicKey({ key, format: 'jwk' });
    return verify('RSA-SHA256', Buffer.from(token.signingInput), publicKey, token.signature);
  } catch {
    return false;
  }
}

/** The `aud` claim as a list (a single audience may be a string). */
export const audiencesOf = (token: WebToken): string[] => {
  const { aud } = token.claims;
  return (Array.isArray(aud) ? aud : [aud]).filter((item): item is string => typeof item === 'string');
};
