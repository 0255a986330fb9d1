/**
 * The region field of an ARN (`arn:partition:service:region:account:resource`): empty for resources
 * whose ARN carries no region (S3 buckets, IAM), undefined when `arn` is not an ARN.
 */
export function arnRegion(arn: string): string | undefined {
  const [prefix, partition, service, region, account, ...resource] = arn.split(':');
  const isArn =
    prefix === 'arn' && Boolean(partition) && Boolean(service) && account !== undefined && resource.length > 0;
  return isArn ? region : undefined;
}
