import { createHash } from 'node:crypto';

/** One page of a list, and the token for the next page when there is one. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextToken?: string;
}

/** A cap on what a page holds besides its size: the items' weights (such as their tags) add up to at most `max`. */
export interface PageBudget<T> {
  readonly max: number;
  weight(item: T): number;
}

/**
 * Pages a list. Tokens are opaque to clients: they carry the offset and a fingerprint of the request's
 * filters, so a token is refused (undefined is returned) when it is forged or reused with other filters.
 * With a budget, a page ends before the item that would take it over (a page holds at least one item).
 */
export function paginate<T>(
  items: readonly T[],
  size: number,
  token: string | undefined,
  filters: unknown,
  budget?: PageBudget<T>,
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
  let end = Math.min(offset + size, items.length);
  if (budget !== undefined) {
    let spent = 0;
    for (let index = offset; index < end; index++) {
      spent += budget.weight(items[index]!);
      if (spent > budget.max && index > offset) {
        end = index;
        break;
      }
    }
  }
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextToken: Buffer.from(`${end}:${fingerprint}`).toString('base64url') } : {}),
  };
}

function decodeToken(token: string): { offset: number; fingerprint: string } | undefined {
  const match = /^(\d+):(.+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return match === null ? undefined : { offset: Number(match[1]), fingerprint: match[2]! };
}
