import { compilePattern, quoteText } from '@keymaster/api';

/**
 * The distinct characters of `text` that `pattern` (`^[...]*$`) refuses, in order of appearance,
 * leaving out those `reported` already.
 */
export function refusedCharacters(text: string, pattern: string, reported: readonly string[] = []): string[] {
  const allowed = compilePattern(pattern);
  return [
    // Character by character, as AWS checks them: code points, not UTF-16 units (nor grapheme clusters).
    ...new Set(Array.from(text).filter((character) => !allowed.test(character) && !reported.includes(character))),
  ];
}

/** Characters as a message shows them: quoted, so that spaces and control characters are visible. */
export const listCharacters = (characters: readonly string[]): string => characters.map(quoteText).join(' ');

/** Whether `text` starts with `prefix`, in any case (as AWS reads `aws:`). */
export const startsWithAnyCase = (text: string, prefix: string): boolean =>
  text.toLowerCase().startsWith(prefix.toLowerCase());
