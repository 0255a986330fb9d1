import { awsFailureOf, failureKind, isRetriable, type AwsFailure } from '../aws/codes.js';
import { backoffMs } from '../aws/retry.js';
import { resourceFailure, TaggingApi, type CallContext } from '../aws/tagging-api.js';
import { mapConcurrently, perRegion } from '../concurrency.js';
import { chunks, MAX_ARNS_PER_CALL, writeGroups } from '../plan/batches.js';
import type { TagPlan } from '../plan/types.js';
import { reportedKeys } from '../memory.js';
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
    const answers = await mapConcurrently(calls, concurrency, (call) => send(api, call));
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

/** One call; its failures, whole or per ARN, come back as values. */
async function send(api: TaggingApi, call: Write): Promise<{ accepted: string[]; failures: [string, AwsFailure][] }> {
  try {
    const output =
      call.action === 'tag:TagResources'
        ? await api.tagResources({ ResourceARNList: call.arns, Tags: call.tags })
        : await api.untagResources({ ResourceARNList: call.arns, TagKeys: call.keys });
    const failed = output.FailedResourcesMap ?? {};
    return {
      accepted: call.arns.filter((arn) => !Object.hasOwn(failed, arn)),
      failures: call.arns
        .filter((arn) => Object.hasOwn(failed, arn))
        .map((arn) => [arn, resourceFailure(failed[arn]!)]),
    };
  } catch (error) {
    const failure = awsFailureOf(error);
    return { accepted: [], failures: call.arns.map((arn) => [arn, failure]) };
  }
}
