import { quoteText, type TAG_LAYERS, type TagSource } from '@keymaster/api';

/**
 * A layer Keymaster writes from: Global (the AWSTagPolicy default), Selected (the policies that select
 * the cluster), Account (an identity) or Cluster (the AWSCluster). The ClusterAPI layer (CAPA's own
 * tags) is read, never written from, so it is none of these.
 */
export type LayerName = (typeof TAG_LAYERS)[number];

/** A claim of one of the layers Keymaster writes from. */
export type LayerClaim = TagSource & { layer: LayerName };

/** Where a tag was written: its layer (the ClusterAPI layer too) and the object, e.g. `AWSClusterRoleIdentity/tenant-b`. */
export interface TagOrigin {
  layer: TagSource['layer'];
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
  | 'Syntax'
  | 'UntrustedClusterAPI';

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
  UntrustedClusterAPI: 'ERR_KEYMASTER_TAGGING_UNTRUSTED_CLUSTER_API',
} as const satisfies Record<TagRule, `ERR_KEYMASTER_TAGGING_${string}`>;

/**
 * One broken rule, as plain JSON so that it can travel in a plan, a status or a log line. The message
 * names the layer, the object, the key (or the line, for text that has no key yet) and the rule.
 */
export interface TagProblem extends TagOrigin {
  code: (typeof TAG_RULE_CODES)[TagRule];
  rule: TagRule;
  /** Absent only for a `customTags` line that has no key, and for a whole layer left out (UntrustedClusterAPI). */
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
