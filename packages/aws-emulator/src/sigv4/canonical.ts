import { createHash } from 'node:crypto';

/** SigV4's canonical request: the exact text both sides hash and sign. */
export interface CanonicalInput {
  readonly method: string;
  /** The path as it arrived, still percent-encoded, without the query. */
  readonly rawPath: string;
  /** The query parameters, decoded, in arrival order (X-Amz-Signature already left out). */
  readonly query: readonly (readonly [string, string])[];
  /** The values of one header by lower-case name, in arrival order. */
  readonly headerValues: (name: string) => readonly string[];
  readonly signedHeaders: readonly string[];
  readonly payloadHash: string;
}

export function canonicalRequest(input: CanonicalInput): string {
  const headers = input.signedHeaders
    .map((name) => `${name}:${input.headerValues(name).map(trimValue).join(',')}\n`)
    .join('');
  return [
    input.method,
    canonicalUri(input.rawPath),
    canonicalQuery(input.query),
    headers,
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is percent-encoded. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Services other than S3 normalize the path and encode each (already encoded) segment once more. */
function canonicalUri(rawPath: string): string {
  const segments: string[] = [];
  for (const segment of rawPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(uriEncode(segment));
  }
  const trailing = segments.length > 0 && rawPath.endsWith('/') ? '/' : '';
  return `/${segments.join('/')}${trailing}`;
}

function canonicalQuery(query: readonly (readonly [string, string])[]): string {
  return query
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

function trimValue(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}
