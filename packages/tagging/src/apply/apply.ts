import { awsFailureOf, failureKind, isRetriable, type AwsFailure, type FailureKind } from '../aws/codes.js';
import { backoffMs } from '../aws/retry.js';
import { resourceFailure, TaggingApi } from '../aws/tagging-api.js';
import type { CallContext } from '../batch/call-context.js';
import type { WriteOutcome } from '../batch/session-batchers.js';
import { mapConcurrently, perRegion } from '../concurrency.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { chunks, MAX_ARNS_PER_CALL, writeGroups } from '../plan/batches.js';
import type { TagPlan } from '../plan/types.js';
import { reportedKeys } from '../legacy.js';
import type { GoneResource, TagFailure, Write } from './types.js';

export interface AppliedWrites {
  /** The writes AWS accepted, each with the ARNs it accepted them for. */
  accepted: Write[];
  failed: TagFailure[];
  gone: GoneResource[];
}

/** The plan's writes: one per region and identical content, every ARN of it (cut into calls later). */
export function planWrites(plan: TagPlan): Write[] {
  const { tag, untag } = writeGroups(plan);
  return [
    ...tag.map(({ region, tags, arns }) => ({
      action: 'tag:TagResources' as const,
      region,
      tags,
      keys: Object.keys(tags),
      arns,
    })),
    ...untag.map(({ region, keys, arns }) => ({ action: 'tag:UntagResources' as const, region, keys, arns })),
  ];
}

/**
 * Sends the writes, every region at once, at most `concurrency` calls at a time per region (the rate
 * limiter decides when each goes). ARNs that fail with an error a retry may fix (throttling, AWS
 * inside) are sent again after a backoff, and only they, regrouped into as few calls as they fit,
 * until `retry.maxAttempts`. ARNs AWS reports as not found are gone, not failed.
 */
export async function applyWrites(
  context: CallContext,
  writes: readonly Write[],
  concurrency: number,
): Promise<AppliedWrites> {
  const outcomes = await perRegion(writes, (region, inRegion) =>
    applyInRegion(new TaggingApi(context, region), context, inRegion, concurrency),
  );
  return {
    accepted: outcomes.flatMap(({ accepted }) => accepted),
    failed: outcomes.flatMap(({ failed }) => failed),
    gone: outcomes.flatMap(({ gone }) => gone),
  };
}

async function applyInRegion(
  api: TaggingApi,
  context: CallContext,
  writes: readonly Write[],
  concurrency: number,
): Promise<AppliedWrites> {
  const outcome: AppliedWrites = { accepted: [], failed: [], gone: [] };
  let pending = writes;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const calls = pending.flatMap((write) => chunks(write.arns, MAX_ARNS_PER_CALL).map((arns) => ({ ...write, arns })));
    const answers = await mapConcurrently(calls, concurrency, (call) => send(api, context, call));
    const retry = new Map<string, Write>();
    calls.forEach((call, index) => {
      const { accepted, failures } = answers[index]!;
      if (accepted.length > 0) outcome.accepted.push({ ...call, arns: accepted });
      for (const [arn, failure] of failures) {
        const kind = failureKind(failure);
        if (kind === 'Gone') {
          outcome.gone.push({ arn, region: call.region, code: failure.code, message: failure.message });
        } else if (isRetriable(kind) && attempt < context.retry.maxAttempts) {
          const key = JSON.stringify([call.action, call.tags ?? call.keys]);
          const again = retry.get(key) ?? { ...call, arns: [] };
          again.arns.push(arn);
          retry.set(key, again);
        } else {
          const { code, message } = failure;
          const keys = reportedKeys(call.keys);
          outcome.failed.push({ arn, region: call.region, action: call.action, kind, code, message, keys });
        }
      }
    });
    pending = [...retry.values()];
    if (pending.length > 0) await context.clock.sleep(backoffMs(attempt, context.retry));
  }
  return outcome;
}

/**
 * One write's calls, shared with the writes of other clusters of the same credentials and content
 * that wait for the rate limiter at the same time (`SessionBatchers`); its failures, whole or per
 * ARN, come back as values, for its own ARNs only.
 */
async function send(api: TaggingApi, context: CallContext, call: Write): Promise<CallAnswer> {
  const content = JSON.stringify([
    context.batchers.scope(context.session, call.region),
    call.action,
    call.tags ?? call.keys,
  ]);
  const answer = await context.batchers.writes.submit(content, call.arns, api.writes, (arns, grant, parts) =>
    sendBatch(api, call, arns, grant, parts),
  );
  const failures = call.arns.flatMap((arn): [string, AwsFailure][] => {
    const failure = answer.get(arn);
    return failure === undefined ? [] : [[arn, failure]];
  });
  return { accepted: call.arns.filter((arn) => answer.get(arn) === undefined), failures };
}

interface CallAnswer {
  accepted: string[];
  failures: [string, AwsFailure][];
}

/**
 * One call for `arns`. A whole call refused for a reason that may lie in one ARN (a malformed ARN,
 * a refused value: not throttling, AWS inside or the credentials' access, which every part shares) is
 * sent again part by part, so that no cluster is told of another's failure.
 */
async function sendBatch(
  api: TaggingApi,
  call: Write,
  arns: string[],
  grant: Grant | undefined,
  parts: readonly (readonly string[])[],
): Promise<Map<string, WriteOutcome>> {
  try {
    const output =
      call.action === 'tag:TagResources'
        ? await api.tagResources({ ResourceARNList: arns, Tags: call.tags }, grant)
        : await api.untagResources({ ResourceARNList: arns, TagKeys: call.keys }, grant);
    const failed = output.FailedResourcesMap ?? {};
    return new Map(arns.map((arn) => [arn, Object.hasOwn(failed, arn) ? resourceFailure(failed[arn]!) : undefined]));
  } catch (error) {
    const failure = awsFailureOf(error);
    if (parts.length > 1 && !SHARED_FAILURES.has(failureKind(failure))) {
      const apart = await Promise.all(parts.map((part) => sendBatch(api, call, [...part], undefined, [part])));
      return new Map(apart.flatMap((answer) => [...answer]));
    }
    return new Map(arns.map((arn) => [arn, failure]));
  }
}

/** Failures of a whole call that every ARN of it shares: the account's throttling, AWS's inside, the credentials' access. */
const SHARED_FAILURES: ReadonlySet<FailureKind> = new Set(['Throttled', 'Unavailable', 'AccessDenied']);
