import { createHash } from 'node:crypto';

/** One page of a list, and the token for the next page when there is one. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextToken?: string;
}

/**
 * Pages a list. Tokens are opaque to clients: they carry the offset and a fingerprint of the request's
 * filters, so a token is refused (undefined is returned) when it is forged or reused with other filters.
 */
export function paginate<T>(
  items: readonly T[],
  size: number,
  token: string | undefined,
  filters: unknown,
): Page<T> | undefined {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(filters ?? null))
    .digest('base64url')
    .slice(0, 16);
  let offset = 0;
  if (token !== undefined && token !== '') {
    const decoded = decodeToken(token);
    if (decoded === undefined || decoded.fingerprint !== fingerprint || decoded.offset > items.length) return undefined;
    offset = decoded.offset;
  }
  const end = offset + size;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextToken: Buffer.from(`${end}:${fingerprint}`).toString('base64url') } : {}),
  };
}

function decodeToken(token: string): { offset: number; fingerprint: string } | undefined {
  const match = /^(\d+):(.+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return match === null ? undefined : { offset: Number(match[1]), fingerprint: match[2]! };
}
