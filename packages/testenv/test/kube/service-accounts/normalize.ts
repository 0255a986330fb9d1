import type { Answer, Side } from './servers.js';

/**
 * What may differ between the two servers' answers to the same requests, and nothing else: each
 * server's own URL (its issuer, default audience and JWKS location), key (kid, modulus), uids, JWT
 * IDs, times and signatures. JWTs are compared by their decoded header and claims, with the times
 * as offsets from `iat` (so the token's lifetime still counts).
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function decodeJwt(text: string): { header: Record<string, unknown>; claims: Record<string, unknown> } | undefined {
  const parts = text.split('.');
  if (parts.length !== 3 || !text.startsWith('eyJ')) return undefined;
  try {
    const [header, claims] = parts
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as unknown);
    return isObject(header) && isObject(claims) ? { header, claims } : undefined;
  } catch {
    return undefined;
  }
}

/** The JWT's parts as compared: `kid` placeholder, times relative to `iat`. */
function normalizeJwt(jwt: { header: Record<string, unknown>; claims: Record<string, unknown> }, side: Side): unknown {
  const { iat, nbf, exp, ...rest } = jwt.claims;
  const issuedAt = typeof iat === 'number' ? iat : 0;
  return {
    jwt: {
      header: { ...jwt.header, ...(typeof jwt.header.kid === 'string' ? { kid: '<kid>' } : {}) },
      claims: {
        ...(normalize(rest, side) as Record<string, unknown>),
        ...(iat === undefined ? {} : { iat: '<time>' }),
        ...(typeof nbf === 'number' ? { nbf: `iat+${nbf - issuedAt}` } : {}),
        ...(typeof exp === 'number' ? { exp: `iat+${exp - issuedAt}` } : {}),
      },
    },
  };
}

function normalizeText(text: string, side: Side): unknown {
  const jwt = decodeJwt(text);
  if (jwt) return normalizeJwt(jwt, side);
  if (TIME.test(text)) return '<time>';
  return text.replaceAll(side.issuer, '<issuer>').replaceAll(side.url, '<url>').replace(UUID, '<uid>');
}

export function normalize(value: unknown, side: Side): unknown {
  if (typeof value === 'string') return normalizeText(value, side);
  if (Array.isArray(value)) return value.map((item) => normalize(item, side));
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A JWKS key's own material: the key ID and the RSA modulus are each server's.
    if ((key === 'kid' || key === 'n') && typeof item === 'string') result[key] = `<${key}>`;
    else result[key] = normalize(item, side);
  }
  return result;
}

/** An answer as compared: status, the headers clients act on, and the normalized body. */
export function observed(answer: Answer, side: Side): unknown {
  const header = (name: string): unknown => answer.headers[name];
  return {
    status: answer.status,
    contentType: header('content-type'),
    cacheControl: header('cache-control'),
    warning: header('warning'),
    body: normalize(answer.body, side),
  };
}
