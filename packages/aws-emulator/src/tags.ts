import { characterCount } from './text.js';

/** AWS's tag rules, shared by the world file, the tagging API and EC2. */

export const MAX_USER_TAGS = 50;
export const MAX_KEY_LENGTH = 128;
export const MAX_VALUE_LENGTH = 256;

/** The characters the Resource Groups Tagging API accepts in keys and values (EC2 accepts any). */
export const TAGGING_API_CHARACTERS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/** `aws:` tags belong to AWS: users can neither set nor remove them, and they do not count towards the 50. */
export function isSystemKey(key: string): boolean {
  return key.toLowerCase().startsWith('aws:');
}

export function userTagCount(tags: ReadonlyMap<string, string>): number {
  let count = 0;
  for (const key of tags.keys()) if (!isSystemKey(key)) count++;
  return count;
}

/** What is wrong with one tag's length or characters, or undefined when it is fine. */
export function tagProblem(key: string, value: string, options: { strictCharacters: boolean }): string | undefined {
  const keyLength = characterCount(key);
  if (keyLength < 1 || keyLength > MAX_KEY_LENGTH) {
    return `tag key ${JSON.stringify(key)} must be 1 to ${MAX_KEY_LENGTH} characters long`;
  }
  if (characterCount(value) > MAX_VALUE_LENGTH) {
    return `the value of tag ${JSON.stringify(key)} must be at most ${MAX_VALUE_LENGTH} characters long`;
  }
  if (options.strictCharacters && (!TAGGING_API_CHARACTERS.test(key) || !TAGGING_API_CHARACTERS.test(value))) {
    return `tag ${JSON.stringify(key)} may hold only letters, digits, spaces and + - = . _ : / @`;
  }
  return undefined;
}
