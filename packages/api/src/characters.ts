/**
 * A string's length as the API server (and CEL's `size()`) and AWS count it: in Unicode code points,
 * not UTF-16 units, so that a letter outside the Basic Multilingual Plane counts once.
 */
export const characterCount = (text: string): number => Array.from(text).length;
