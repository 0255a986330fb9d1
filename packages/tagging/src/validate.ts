import { characterCount, LIMITS, quoteText, TAG_CHARACTERS, type ResourceTag } from '@keymaster/api';
import { InvalidTagsError } from './errors.js';
import { foldKey } from './key-fold.js';
import { isOwnershipKey } from './ownership.js';
import { tagProblem, type TagOrigin, type TagProblem, type TagRule } from './problems.js';
import { DEFAULT_RESERVED_KEYS, reservation, type ReservedKeys } from './reserved-keys.js';
import { checkServiceRules, type ServiceTagRules } from './service-rules.js';
import { listCharacters, refusedCharacters, startsWithAnyCase } from './characters.js';

export interface TagValidationOptions {
  /** Keys no layer may set. Default: `DEFAULT_RESERVED_KEYS`. */
  reservedKeys?: ReservedKeys;
  /** Stricter rules of services the tags must also suit, e.g. `SERVICE_TAG_RULES.rds`. */
  services?: readonly ServiceTagRules[];
}

const AWS_PREFIX = 'aws:';
const GENERAL_SET = 'letters, digits, spaces and _ . : / = + - @';

/** Tags whose keys start with `aws:` (in any case) belong to AWS and do not count against the limit. */
export const isAwsKey = (key: string): boolean => startsWithAnyCase(key, AWS_PREFIX);

/** The user tags of a resource: those AWS counts against its 50-tag limit. */
export const countUserTags = (tags: Readonly<Record<string, string>>): number =>
  Object.keys(tags).filter((key) => !isAwsKey(key)).length;

/**
 * Checks one tag against AWS's rules (lengths in code points, the `aws:` prefix, the general
 * character set), whitespace around the key, the reserved platform keys and ownership keys (in any
 * case), and the stricter rules of `options.services`. Returns one
 * problem per broken rule, each naming the origin, the key and the rule; empty when the tag is valid.
 */
export function validateTag(
  key: string,
  value: string,
  origin: TagOrigin,
  options: TagValidationOptions = {},
): TagProblem[] {
  const problems: TagProblem[] = [];
  const broken = (rule: TagRule, detail: string) => problems.push(tagProblem(origin, key, rule, detail));

  const keyLength = characterCount(key);
  if (keyLength < 1 || keyLength > LIMITS.tagKeyLength) {
    broken('KeyLength', `the key is ${keyLength} characters long; AWS allows 1-${LIMITS.tagKeyLength}`);
  }
  const valueLength = characterCount(value);
  if (valueLength > LIMITS.tagValueLength) {
    broken('ValueLength', `the value is ${valueLength} characters long; AWS allows 0-${LIMITS.tagValueLength}`);
  }
  if (isAwsKey(key)) broken('ReservedPrefix', `keys starting with "${AWS_PREFIX}" (in any case) are reserved by AWS`);

  const keyRefused = refusedCharacters(key, TAG_CHARACTERS);
  if (keyRefused.length > 0) {
    broken('KeyCharacters', `the key holds ${listCharacters(keyRefused)}; AWS allows ${GENERAL_SET}`);
  }
  const valueRefused = refusedCharacters(value, TAG_CHARACTERS);
  if (valueRefused.length > 0) {
    broken('ValueCharacters', `the value holds ${listCharacters(valueRefused)}; AWS allows ${GENERAL_SET}`);
  }
  // AWS keeps it, so `team ` would be another key than `team` that no listing tells apart.
  if (key !== key.trim()) broken('KeyWhitespace', 'the key starts or ends with whitespace; remove it');

  const reason = reservation(key, options.reservedKeys ?? DEFAULT_RESERVED_KEYS);
  if (reason !== undefined) broken('ReservedKey', reason);
  else if (isOwnershipKey(key)) broken('OwnershipKey', 'ownership tags are never written or removed by Keymaster');

  for (const rules of options.services ?? []) {
    checkServiceRules(rules, key, value, { key: keyRefused, value: valueRefused }, broken);
  }
  return problems;
}

/** The outcome of checking a list of tags: the valid ones, in order, and the problems of the others. */
export interface CheckedTags {
  valid: ResourceTag[];
  problems: TagProblem[];
}

/**
 * Checks the tags of one layer. An invalid tag is left out and reported; it does not sink the others.
 * A key given twice, or again in another case, keeps its first entry.
 */
export function validateTags(
  tags: readonly ResourceTag[],
  origin: TagOrigin,
  options: TagValidationOptions = {},
): CheckedTags {
  return checkEntries(
    tags.map((tag) => ({ tag, origin })),
    options,
  );
}

/** `validateTags` for tags that each have their own origin (e.g. their line in a text). */
export function checkEntries(
  entries: readonly { tag: ResourceTag; origin: TagOrigin }[],
  options: TagValidationOptions,
): CheckedTags {
  const result: CheckedTags = { valid: [], problems: [] };
  // Folded key -> the first key given with that fold.
  const seen = new Map<string, string>();
  for (const { tag, origin } of entries) {
    const problems = validateTag(tag.key, tag.value, origin, options);
    const first = seen.get(foldKey(tag.key));
    if (first === tag.key) {
      problems.push(tagProblem(origin, tag.key, 'DuplicateKey', 'the key is given more than once; the first wins'));
    } else if (first !== undefined) {
      const detail = `the key is given before as ${quoteText(first)}, which IAM reads as the same key; the first wins`;
      problems.push(tagProblem(origin, tag.key, 'DuplicateKey', detail));
    }
    if (first === undefined) seen.set(foldKey(tag.key), tag.key);
    if (problems.length === 0) result.valid.push(tag);
    result.problems.push(...problems);
  }
  return result;
}

/** Throws InvalidTagsError, listing every problem, unless all `tags` are valid. */
export function assertValidTags(
  tags: readonly ResourceTag[],
  origin: TagOrigin,
  options: TagValidationOptions = {},
): void {
  const { problems } = validateTags(tags, origin, options);
  if (problems.length > 0) throw new InvalidTagsError(problems);
}
