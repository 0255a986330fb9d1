import { setEntry } from './records.js';

/** Between the parts of a packed resource: AWS allows no control character in an ARN, a region, a key or a value. */
const SEPARATOR = '\u0000';

/**
 * `head` (the ARN, and what else is kept with it), then the tags' keys and values, as one string: less
 * heap than the objects it came as (a known set: 60 %). Undefined when a part holds the separator (AWS
 * allows none): the caller keeps the object.
 */
export function packTags(head: readonly string[], tags: Record<string, string>): string | undefined {
  const parts = [...head];
  for (const key in tags) parts.push(key, tags[key]!);
  return parts.some((part) => part.includes(SEPARATOR)) ? undefined : parts.join(SEPARATOR);
}

/** What `packTags` packed with a head of `headLength` parts. */
export function unpackTags(packed: string, headLength: number): { head: string[]; tags: Record<string, string> } {
  const parts = packed.split(SEPARATOR);
  const tags: Record<string, string> = {};
  for (let i = headLength; i < parts.length; i += 2) setEntry(tags, parts[i]!, parts[i + 1]!);
  return { head: parts.slice(0, headLength), tags };
}

/** What a packed string takes: a one-byte string's header and characters, and its place in a list. */
export const packedBytes = (packed: string): number => 40 + packed.length;
