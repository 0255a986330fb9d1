import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Identifiers in AWS's formats. Stable ones derive from a seed; credentials are random. */

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32.charAt(bytes[i]! % 32);
  return out;
}

/** A stable unique ID such as a user's `AIDA...` or a role's `AROA...`, derived from its ARN. */
export function stableId(prefix: 'AIDA' | 'AROA', seed: string): string {
  return prefix + base32(createHash('sha256').update(seed).digest(), 17);
}

/** A fresh temporary access key ID (`ASIA` and 16 characters, as STS issues them). */
export function sessionAccessKeyId(): string {
  return 'ASIA' + base32(randomBytes(16), 16);
}

export function secretAccessKey(): string {
  return randomBytes(30).toString('base64');
}

export function sessionToken(): string {
  return 'IQoJb3JpZ2luX2VjE' + randomBytes(240).toString('base64');
}

export function requestId(): string {
  return randomUUID();
}
