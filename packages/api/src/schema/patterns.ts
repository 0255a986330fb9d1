/**
 * Patterns shared by the schemas and the controller. They are written so that Go's RE2 (the API
 * server) and JavaScript's `u`-flag RegExp read them the same way.
 */

/** AWS's general tag character set: letters, separators and digits of any script, and `_ . : / = + - @`. */
export const TAG_CHARACTERS = '^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*$';
/**
 * An AWS region's name: partition prefix (`us`, `eu`, `ap`, ..., `cn`; `eusc-de` for the European
 * Sovereign Cloud), an optional `-gov` or `-iso*` (GovCloud, ISO partitions), a direction and a number
 * from 1 to 9 (us-east-1, us-gov-west-1, cn-northwest-1, ap-southeast-7, us-isob-east-1). Refuses
 * typos such as `us-west-22` or `eu-wset-1`, which AWS would answer only with an unknown endpoint.
 */
export const REGION =
  '^(af|ap|ca|cn|eu|il|me|mx|sa|us|eusc-de)(-gov|-iso[a-z]?)?-(central|north|south|east|west|northeast|northwest|southeast|southwest)-[1-9]$';
export const ACCOUNT_ID = '^[0-9]{12}$';
export const ROLE_ARN = '^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/[\\w+=,.@/-]+$';
export const POLICY_ARN = '^arn:aws(-[a-z]+)*:iam::([0-9]{12}|aws):policy/[\\w+=,.@/-]+$';
/** An IAM action in a policy statement: `*`, or service:Action with wildcards (tag:GetResources, s3:Get*). */
export const IAM_ACTION = '^(\\*|[a-z0-9-]+:[A-Za-z0-9*?]+)$';
/** A policy statement's resource: `*`, or an ARN (wildcards allowed), no whitespace. */
export const IAM_RESOURCE = '^(\\*|arn:\\S+)$';
export const ROLE_SESSION_NAME = '^[\\w+=,.@-]*$';
export const EXTERNAL_ID = '^[\\w+=,.@:/-]*$';
/** A key of a Secret's data, as the API server allows it. */
export const SECRET_KEY = '^[-._a-zA-Z0-9]+$';
export const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/**
 * A cluster name as it appears inside the ownership tag keys: an EKS cluster's name (EKS CreateCluster:
 * `^[0-9A-Za-z][A-Za-z0-9\-_]*`, case-sensitive, as CAPA's default `<namespace>_<name>`), or a name
 * valid before EKS names were (lower case, dots inside): their union, nothing else.
 */
export const CLUSTER_NAME = '^([0-9A-Za-z][-0-9A-Za-z_]*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$';
/** A label's value (a tenant's name in the tenancy label): 63 characters at most, alphanumeric at both ends. */
export const LABEL_VALUE = '^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$';
/** A fingerprint of a key=value in an AWSClusterLedger: 12 characters of 6 bits (72 bits of SHA-256). */
export const LEDGER_PRINT = '^[A-Za-z0-9+-]{12}$';
/** A resource in an AWSClusterLedger: 16 characters of 6 bits (96 bits of SHA-256 of its ARN). */
export const LEDGER_RESOURCE = '^[A-Za-z0-9+-]{16}$';
export const CONDITION_REASON = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';

export const LIMITS = {
  tagKeyLength: 128,
  tagValueLength: 256,
  tagsPerResource: 50,
  sessionNameLength: [2, 64],
  externalIdLength: [2, 1224],
  durationSeconds: [900, 43200],
  /** AWS refuses longer sessions for a role assumed with another role's session. */
  chainedDurationSeconds: 3600,
  policyArns: 10,
  inlinePolicyLength: 2048,
  /**
   * A tag key holds 128 characters, and the longest ownership tag key's prefix,
   * `sigs.k8s.io/cluster-api-provider-aws/cluster/`, 45: a longer name could not be in it.
   */
  clusterNameLength: 83,
  /** EKS's bound on a cluster's name (CreateCluster), longer than the ownership keys leave. */
  eksClusterNameLength: 100,
  /** The changes status.tagging.plan lists (a dry run's): status stays small whatever the plan. */
  planChangesInStatus: 10,
} as const;

const compiled = new Map<string, RegExp>();

/** A schema pattern compiled once, with the `u` flag that `\p{...}` classes need. */
export function compilePattern(pattern: string): RegExp {
  let regexp = compiled.get(pattern);
  if (!regexp) {
    regexp = new RegExp(pattern, 'u');
    compiled.set(pattern, regexp);
  }
  return regexp;
}
