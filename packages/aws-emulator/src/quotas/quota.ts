/**
 * One of AWS's published request quotas: a token bucket per account and region, full at first, that
 * holds `capacity` requests and refills `refillPerSecond` a second. Each service declares its own.
 */
export interface Quota {
  /** The bucket's name: the IAM action it counts (`ec2:CreateTags`), or `sts:*` for a bucket actions share. */
  readonly name: string;
  /** The actions that take a token from it, as the service names them (`CreateTags`). */
  readonly actions: readonly string[];
  readonly capacity: number;
  readonly refillPerSecond: number;
  /** Where AWS publishes the number. */
  readonly source: string;
}

/** A bucket per action, each with the same numbers (EC2 and the tagging API count each API on its own). */
export function perAction(
  iamPrefix: string,
  actions: readonly string[],
  limit: Pick<Quota, 'capacity' | 'refillPerSecond' | 'source'>,
): Quota[] {
  return actions.map((action) => ({ name: `${iamPrefix}:${action}`, actions: [action], ...limit }));
}

/**
 * AWS publishes "N requests per second" for the tagging API and STS, and no burst: the emulator takes
 * the strictest reading, a bucket of N refilled at N a second (N at once after a quiet spell, then N a second).
 */
export function perSecond(requests: number, source: string): Pick<Quota, 'capacity' | 'refillPerSecond' | 'source'> {
  return { capacity: requests, refillPerSecond: requests, source };
}
