import type { ResourceTag } from '@keymaster/api';
import { tagProblem, type TagOrigin, type TagProblem } from './problems.js';
import { checkEntries, type TagValidationOptions } from './validate.js';

export interface ParsedCustomTags {
  /** The valid tags, in the order of their lines. */
  tags: ResourceTag[];
  /** Malformed lines and invalid tags, each with its line number. */
  problems: TagProblem[];
}

/**
 * Reads the `customTags` text of an aws-account-operator AccountClaim: one `key=value` per line, split
 * on the first `=`. Unlike the operator, it trims keys and values, skips blank lines, reports a line
 * without `=` or without a key instead of crashing, and validates every tag. `origin` names the layer
 * the tags are meant for and the object they come from, e.g. `{layer: 'Account', object: 'AccountClaim ns/name'}`.
 */
export function parseCustomTags(
  text: string,
  origin: Omit<TagOrigin, 'line'>,
  options: TagValidationOptions = {},
): ParsedCustomTags {
  const entries: { tag: ResourceTag; origin: TagOrigin }[] = [];
  const syntax: TagProblem[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const lineOrigin = { ...origin, line: index + 1 };
    const separator = line.indexOf('=');
    const key = line.slice(0, Math.max(separator, 0)).trim();
    if (separator === -1) {
      syntax.push(tagProblem(lineOrigin, undefined, 'Syntax', 'expected key=value but the line has no "="'));
    } else if (key === '') {
      syntax.push(tagProblem(lineOrigin, undefined, 'Syntax', 'expected key=value but the line has no key before "="'));
    } else {
      entries.push({ tag: { key, value: line.slice(separator + 1).trim() }, origin: lineOrigin });
    }
  });
  const checked = checkEntries(entries, options);
  const problems = [...syntax, ...checked.problems].sort((a, b) => a.line! - b.line!);
  return { tags: checked.valid, problems };
}
