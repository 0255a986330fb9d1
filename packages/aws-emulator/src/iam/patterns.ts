/**
 * IAM's wildcard patterns: `*` matches any run of characters, `?` any one character, everything else
 * itself. Action names match case-insensitively, resource ARNs and condition values case-sensitively.
 */
export type Matcher = (text: string) => boolean;

const compiled = new Map<string, RegExp>();

export function wildcardMatcher(pattern: string, options: { ignoreCase?: boolean } = {}): Matcher {
  if (pattern === '*') return () => true;
  if (!/[*?]/.test(pattern)) {
    if (options.ignoreCase !== true) return (text) => text === pattern;
    const lower = pattern.toLowerCase();
    return (text) => text.toLowerCase() === lower;
  }
  const cacheKey = `${options.ignoreCase === true ? 'i' : 's'}${pattern}`;
  let regex = compiled.get(cacheKey);
  if (regex === undefined) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    regex = new RegExp(`^${source}$`, options.ignoreCase === true ? 'is' : 's');
    compiled.set(cacheKey, regex);
  }
  const matcher = regex;
  return (text) => matcher.test(text);
}
