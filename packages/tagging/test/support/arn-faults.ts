/**
 * Faults the aws-emulator cannot inject: per-ARN failures of TagResources / UntagResources, writes AWS
 * says it made but did not, GetResources listing resources that are gone (AWS's index lags behind
 * deletions), and reads by ARN failing while queries by tag work. A middleware on the test's own SDK clients, before the rate limiter: the ARNs it takes
 * out of a request are never sent, so the emulator's state and call log stay the truth.
 */

interface FailedResource {
  StatusCode: number;
  ErrorCode: string;
  ErrorMessage: string;
}

const TAGGING_API_WRITES = new Set(['TagResourcesCommand', 'UntagResourcesCommand']);

type Args = { input: Record<string, unknown> };
type Result = { output: Record<string, unknown> };
type Handler = (args: Args) => Promise<Result>;

export class ArnFaults {
  /** Every TagResources / UntagResources request as Keymaster made it (each attempt of the SDK's too), oldest first. */
  readonly writes: { command: string; region: string; arns: string[] }[] = [];
  readonly #failures = new Map<string, { entry: FailedResource; remaining: number }>();
  readonly #dropped = new Set<string>();
  #ghosts: { ResourceARN: string; Tags: { Key: string; Value: string }[] }[] = [];
  #readFailure: Error | undefined;

  /** The next `times` writes of each ARN fail with `entry` in FailedResourcesMap. */
  fail(arns: Iterable<string>, entry: FailedResource, times = Number.POSITIVE_INFINITY): this {
    for (const arn of arns) this.#failures.set(arn, { entry, remaining: times });
    return this;
  }

  /** Writes of these ARNs are reported as done but never made. */
  drop(arns: Iterable<string>): this {
    for (const arn of arns) this.#dropped.add(arn);
    return this;
  }

  /** GetResources queries by tag (and scans of every resource) also list these resources, which do not exist. */
  ghosts(resources: Record<string, Record<string, string>>): this {
    this.#ghosts = Object.entries(resources).map(([ResourceARN, tags]) => ({
      ResourceARN,
      Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
    }));
    return this;
  }

  /** GetResources by ARN (reading tags back) fails with AWS's `code`. */
  failReads(code: string, message: string): this {
    this.#readFailure = Object.assign(new Error(message), { name: code, $metadata: { httpStatusCode: 400 } });
    return this;
  }

  /** Adds the middleware to an SDK client of `region`. */
  install(client: { middlewareStack: { add(middleware: unknown, options: object): void } }, region: string): void {
    // The Tagging API's calls only: EC2's own go as they are.
    const middleware = (next: Handler, context: { commandName?: string }) => (args: Args) =>
      context.commandName === 'GetResourcesCommand'
        ? this.#listGhosts(next, args, region)
        : TAGGING_API_WRITES.has(context.commandName ?? '')
          ? this.#write(next, args, { command: context.commandName!, region })
          : next(args);
    client.middlewareStack.add(middleware, { step: 'initialize', name: 'testArnFaults' });
  }

  async #write(next: Handler, args: Args, call: { command: string; region: string }): Promise<Result> {
    const arns = args.input.ResourceARNList as string[];
    this.writes.push({ ...call, arns });
    const failed: Record<string, FailedResource> = {};
    const sent: string[] = [];
    for (const arn of arns) {
      const failure = this.#failures.get(arn);
      if (failure !== undefined && failure.remaining > 0) {
        failure.remaining--;
        failed[arn] = failure.entry;
      } else if (!this.#dropped.has(arn)) {
        sent.push(arn);
      }
    }
    if (sent.length === arns.length) return next(args);
    const result =
      sent.length > 0 ? await next({ ...args, input: { ...args.input, ResourceARNList: sent } }) : { output: {} };
    const answered = (result.output.FailedResourcesMap ?? {}) as Record<string, FailedResource>;
    return { ...result, output: { ...result.output, FailedResourcesMap: { ...answered, ...failed } } };
  }

  async #listGhosts(next: Handler, args: Args, region: string): Promise<Result> {
    if (this.#readFailure && args.input.ResourceARNList) throw this.#readFailure;
    const result = await next(args);
    const ghosts = this.#ghosts.filter(({ ResourceARN }) => ResourceARN.split(':')[3] === region);
    if (args.input.ResourceARNList !== undefined || result.output.PaginationToken || ghosts.length === 0) return result;
    const listed = result.output.ResourceTagMappingList as unknown[];
    return { ...result, output: { ...result.output, ResourceTagMappingList: [...listed, ...ghosts] } };
  }
}
