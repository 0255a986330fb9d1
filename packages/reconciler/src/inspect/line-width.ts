import { characterCount, displayText } from '@keymaster/api';

/** The widest line of `keymaster plan`'s table: a terminal of 100 columns shows each on one line. */
export const LINE_WIDTH = 100;

/**
 * `text` as shown (escaped: displayText) cut in the middle to `width` characters, `…` where it was
 * cut: both ends (an ARN's service, its ID) stay. Measured escaped, so escaping cannot widen it later.
 */
export function elide(text: string, width: number): string {
  const shown = displayText(text);
  const characters = Array.from(shown);
  if (characters.length <= width) return shown;
  const kept = Math.max(width - 1, 0);
  const head = Math.ceil(kept / 2);
  return `${characters.slice(0, head).join('')}…${characters.slice(characters.length - (kept - head)).join('')}`;
}

/**
 * Words (as shown, escaped) in lines no wider than LINE_WIDTH: the first line starts with `first`,
 * the next ones with `indent`; a word wider than a whole line is elided.
 */
export function wrap(first: string, words: readonly string[], indent: string): string[] {
  const lines: string[] = [];
  let line = first;
  let started = false;
  for (const word of words.map(displayText)) {
    const joined = started ? `${line} ${word}` : line + word;
    if (characterCount(joined) <= LINE_WIDTH) {
      line = joined;
    } else {
      // To the next line; the first word too when `first` says something and the word fits there whole.
      if (started || (first.trim() !== '' && characterCount(indent + word) <= LINE_WIDTH)) {
        lines.push(line.trimEnd());
        line = indent;
      }
      line += elide(word, LINE_WIDTH - characterCount(line));
    }
    started = true;
  }
  return [...lines, line];
}

/** Prose in lines no wider than LINE_WIDTH, broken at spaces, the lines after the first indented. */
export const wrapText = (first: string, text: string, indent: string): string[] => wrap(first, text.split(' '), indent);
