import { quoteText, type TagSource } from '@keymaster/api';

/** The layer a tag comes from: Global (AWSTagPolicy), Account (an identity) or Cluster (the AWSCluster). */
export type LayerName = TagSource['layer'];

/** Where a tag was written: its layer and the object, e.g. `AWSClusterRoleIdentity/tenant-b`. */
export interface TagOrigin {
  layer: LayerName;
  object: string;
  /** The line, for tags parsed from AccountClaim-style `customTags` text (1-based). */
  line?: number;
}

/** The rules a tag can break; each has a stable error code (see `TAG_RULE_CODES`). */
export type TagRule =
  | 'KeyLength'
  | 'ValueLength'
  | 'ReservedPrefix'
  | 'KeyCharacters'
  | 'KeyWhitespace'
  | 'ValueCharacters'
  | 'ReservedKey'
  | 'ForbiddenKey'
  | 'OwnershipKey'
  | 'DuplicateKey'
  | 'KeyVariant'
  | 'Syntax';

export const TAG_RULE_CODES = {
  KeyLength: 'ERR_KEYMASTER_TAGGING_KEY_LENGTH',
  ValueLength: 'ERR_KEYMASTER_TAGGING_VALUE_LENGTH',
  ReservedPrefix: 'ERR_KEYMASTER_TAGGING_RESERVED_PREFIX',
  KeyCharacters: 'ERR_KEYMASTER_TAGGING_KEY_CHARACTERS',
  KeyWhitespace: 'ERR_KEYMASTER_TAGGING_KEY_WHITESPACE',
  ValueCharacters: 'ERR_KEYMASTER_TAGGING_VALUE_CHARACTERS',
  ReservedKey: 'ERR_KEYMASTER_TAGGING_RESERVED_KEY',
  ForbiddenKey: 'ERR_KEYMASTER_TAGGING_FORBIDDEN_KEY',
  OwnershipKey: 'ERR_KEYMASTER_TAGGING_OWNERSHIP_KEY',
  DuplicateKey: 'ERR_KEYMASTER_TAGGING_DUPLICATE_KEY',
  KeyVariant: 'ERR_KEYMASTER_TAGGING_KEY_VARIANT',
  Syntax: 'ERR_KEYMASTER_TAGGING_CUSTOM_TAGS_SYNTAX',
} as const satisfies Record<TagRule, `ERR_KEYMASTER_TAGGING_${string}`>;

/**
 * One broken rule, as plain JSON so that it can travel in a plan, a status or a log line. The message
 * names the layer, the object, the key (or the line, for text that has no key yet) and the rule.
 */
export interface TagProblem extends TagOrigin {
  code: (typeof TAG_RULE_CODES)[TagRule];
  rule: TagRule;
  /** Absent only for a `customTags` line that has no key. */
  key?: string;
  message: string;
}

export function tagProblem(origin: TagOrigin, key: string | undefined, rule: TagRule, detail: string): TagProblem {
  const where = [
    `${origin.layer} layer`,
    origin.object,
    ...(origin.line === undefined ? [] : [`line ${origin.line}`]),
    ...(key === undefined ? [] : [`key ${quoteText(key)}`]),
  ].join(', ');
  return {
    code: TAG_RULE_CODES[rule],
    rule,
    layer: origin.layer,
    object: origin.object,
    ...(origin.line === undefined ? {} : { line: origin.line }),
    ...(key === undefined ? {} : { key }),
    message: `${where}: ${detail} (rule ${rule})`,
  };
}
