import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureClaims } from './claims.js';
import { sha256Hex } from './canonical.js';

const signingKeys = new Map<string, Buffer>();
const MAX_CACHED_KEYS = 10_000;

/** The signature SigV4 computes for a canonical request with the given secret and the claimed scope. */
export function expectedSignature(secret: string, claims: SignatureClaims, canonical: string): string {
  const scope = `${claims.scopeDate}/${claims.region}/${claims.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${claims.amzDate}\n${scope}\n${sha256Hex(canonical)}`;
  return createHmac('sha256', signingKey(secret, claims)).update(stringToSign).digest('hex');
}

/** Compares two secrets (signatures, session tokens) in constant time. */
export function constantTimeEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The derived key changes once a day per scope, so it is cached (as AWS and the SDKs do). */
function signingKey(secret: string, claims: SignatureClaims): Buffer {
  const cacheKey = `${claims.scopeDate}/${claims.region}/${claims.service}/${secret}`;
  let key = signingKeys.get(cacheKey);
  if (key === undefined) {
    const date = hmac(`AWS4${secret}`, claims.scopeDate);
    key = hmac(hmac(hmac(date, claims.region), claims.service), 'aws4_request');
    if (signingKeys.size >= MAX_CACHED_KEYS) signingKeys.clear();
    signingKeys.set(cacheKey, key);
  }
  return key;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
