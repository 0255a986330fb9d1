import type { FinalizeRequestMiddleware, MiddlewareStack } from '@smithy/types';
import type { Grant, RateLimiter } from '../rate-limit/rate-limiter.js';
import { awsFailureOf, failureKind, type AwsFailure } from './codes.js';
import { failuresOf } from './failed-resources.js';

/**
 * Puts `limiter` inside the SDK's retry loop, just before signing, so that every attempt waits for a
 * token (a signature is fresh when the request leaves), is counted in `requests` under `action`, and
 * reports whether AWS throttled it, either the whole call or an ARN of `FailedResourcesMap`. `first`
 * is a token already taken for the first attempt (a batch waited for it while other calls joined).
 */
export function limitRequests<I extends object, O extends object>(
  command: { middlewareStack: MiddlewareStack<I, O> },
  action: string,
  limiter: RateLimiter,
  first: Grant | undefined,
  requests: Record<string, number>,
): void {
  let taken = first;
  const middleware: FinalizeRequestMiddleware<I, O> = (next) => async (args) => {
    const grant = taken ?? (await limiter.acquire());
    taken = undefined;
    requests[action] = (requests[action] ?? 0) + 1;
    let result;
    try {
      result = await limiter.inFlight(next(args));
    } catch (error) {
      report(limiter, grant, [awsFailureOf(error)]);
      throw error;
    }
    report(limiter, grant, failuresOf(result.output));
    return result;
  };
  command.middlewareStack.addRelativeTo(middleware, {
    relation: 'before',
    toMiddleware: 'httpSigningMiddleware',
    name: 'keymasterRateLimiter',
  });
}

/** Tells the limiter how AWS answered: throttled (the whole call or any ARN), or not; no answer tells nothing. */
function report(limiter: RateLimiter, grant: Grant, failures: readonly AwsFailure[]): void {
  if (failures.some((failure) => failureKind(failure) === 'Throttled')) limiter.throttled(grant);
  else if (failures.every(({ status }) => status !== undefined)) limiter.succeeded();
}
