/** Where the first `count` colons of `arn` are (fewer when it has fewer): its fields, found without splitting it. */
function colons(arn: string, count: number): number[] {
  const at: number[] = [];
  for (let i = arn.indexOf(':'); i !== -1 && at.length < count; i = arn.indexOf(':', i + 1)) at.push(i);
  return at;
}

/**
 * The region field of an ARN (`arn:partition:service:region:account:resource`): empty for resources
 * whose ARN carries no region (S3 buckets, IAM), undefined when `arn` is not an ARN.
 */
export function arnRegion(arn: string): string | undefined {
  const at = colons(arn, 5);
  // Six fields at least (the resource may be empty).
  if (at.length < 5) return undefined;
  const [afterPrefix, afterPartition, afterService, afterRegion] = at as [number, number, number, number];
  const isArn = afterPrefix === 3 && arn.startsWith('arn') && afterPartition > 4 && afterService > afterPartition + 1;
  return isArn ? arn.slice(afterService + 1, afterRegion) : undefined;
}

/** The service field of an ARN (`ec2` in `arn:aws:ec2:...`): the third field, empty when there is none. */
export function arnService(arn: string): string {
  const [, afterPartition, afterService] = colons(arn, 3);
  return afterPartition === undefined ? '' : arn.slice(afterPartition + 1, afterService);
}
