/**
 * A string's length as AWS counts it: in characters (Unicode code points), not in UTF-16 units, so
 * that a letter outside the Basic Multilingual Plane counts once.
 */
export const characterCount = (text: string): number => Array.from(text).length;
