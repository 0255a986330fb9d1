import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so that equal values always hash alike. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** A SHA-256 of a value's canonical JSON: equal values, equal digests; a digest tells nothing of the value. */
export const digest = (value: unknown): string => createHash('sha256').update(canonical(value)).digest('hex');
