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
