/**
 * Characters that make a terminal or `kubectl describe` show something other than the text: C0
 * controls (line breaks and escape sequences included), DEL, C1 controls, Unicode's line and
 * paragraph separators and its bidirectional formatting characters (embeddings, overrides, isolates,
 * marks), with which a message could be made to read backwards.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character shown as its `\uXXXX` escape. Backslashes are left alone, so it
 * is idempotent: a message escaped where it was built may be escaped again on its way out.
 */
export const displayText = (text: string): string =>
  text.replace(UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A user-supplied string for a message: quoted as JSON quotes it, and what JSON leaves raw escaped too. */
export const quoteText = (text: string): string => displayText(JSON.stringify(text));
