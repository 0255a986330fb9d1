/** An Amazon Resource Name split into its parts. */
export interface Arn {
  readonly partition: string;
  readonly service: string;
  readonly region: string;
  readonly account: string;
  /** Everything after the account: `instance/i-0123`, `role/admin`, `bucket-name`. */
  readonly resource: string;
  /** The resource type: the part of `resource` before the first `/` or `:` (`instance`), or '' when none. */
  readonly resourceType: string;
  /** The resource's own id or name: the part of `resource` after the type (`i-0123`). */
  readonly resourceId: string;
}

const ARN = /^arn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*):(\d{12}|aws|):(.+)$/;

export function parseArn(text: string): Arn | undefined {
  const match = ARN.exec(text);
  if (match === null) return undefined;
  const [, partition, service, region, account, resource] = match as unknown as [string, ...string[]];
  const separator = /[/:]/.exec(resource!);
  return {
    partition: partition!,
    service: service!,
    region: region!,
    account: account!,
    resource: resource!,
    resourceType: separator === null ? '' : resource!.slice(0, separator.index),
    resourceId: separator === null ? resource! : resource!.slice(separator.index + 1),
  };
}
