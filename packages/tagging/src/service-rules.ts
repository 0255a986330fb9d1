import { listCharacters, refusedCharacters, startsWithAnyCase } from './characters.js';
import type { TagRule } from './problems.js';

/**
 * Tag rules of AWS services that are stricter than AWS's general ones. The general rules (lengths,
 * the `aws:` prefix, TAG_CHARACTERS) always apply; pass the sets of the services your tags must also
 * suit in `TagValidationOptions.services`. EC2 itself accepts any character, ELB, S3, IAM, Secrets
 * Manager, SSM, EKS and Route 53 the general set: those need no entry here.
 */
export interface ServiceTagRules {
  /** The service or feature, named in problems. */
  service: string;
  /** A pattern (`^[...]*$`, read with the `u` flag) that keys must match besides the general set. */
  keyCharacters?: string;
  /** A pattern that values must match besides the general set. */
  valueCharacters?: string;
  /** Prefixes (in any case) that neither keys nor values may start with. */
  reservedPrefixes?: readonly string[];
  /** Keys refused outright. */
  forbiddenKeys?: readonly string[];
}

export const SERVICE_TAG_RULES = {
  /** EC2 instances that expose their tags in the instance metadata service (IMDS `tags/instance`). */
  ec2InstanceMetadata: {
    service: 'EC2 instance tags in instance metadata',
    keyCharacters: '^[A-Za-z0-9+\\-=._:@]*$',
    forbiddenKeys: ['.', '..', '_index'],
  },
  /** Amazon RDS and Aurora reserve their own prefix on keys and values. */
  rds: { service: 'Amazon RDS', reservedPrefixes: ['rds:'] },
  /** DynamoDB documents the general set without `@`. */
  dynamodb: {
    service: 'Amazon DynamoDB',
    keyCharacters: '^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-]*$',
    valueCharacters: '^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-]*$',
  },
} as const satisfies Record<string, ServiceTagRules>;

/**
 * Reports, through `broken`, the rules of one service that a tag breaks. Characters the general set
 * refused already (`reported`) are not reported again.
 */
export function checkServiceRules(
  rules: ServiceTagRules,
  key: string,
  value: string,
  reported: { key: readonly string[]; value: readonly string[] },
  broken: (rule: TagRule, detail: string) => void,
): void {
  const keyRefused = rules.keyCharacters ? refusedCharacters(key, rules.keyCharacters, reported.key) : [];
  if (keyRefused.length > 0) broken('KeyCharacters', `${rules.service} refuses ${listCharacters(keyRefused)} in keys`);
  const valueRefused = rules.valueCharacters ? refusedCharacters(value, rules.valueCharacters, reported.value) : [];
  if (valueRefused.length > 0) {
    broken('ValueCharacters', `${rules.service} refuses ${listCharacters(valueRefused)} in values`);
  }
  for (const prefix of rules.reservedPrefixes ?? []) {
    if (startsWithAnyCase(key, prefix) || startsWithAnyCase(value, prefix)) {
      broken('ReservedPrefix', `${rules.service} reserves the prefix "${prefix}" (in any case) in keys and values`);
    }
  }
  if (rules.forbiddenKeys?.includes(key)) broken('ForbiddenKey', `${rules.service} refuses this key`);
}
