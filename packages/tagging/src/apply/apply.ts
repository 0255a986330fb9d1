import { awsFailureOf, failureKind, isRetriable, type AwsFailure } from '../aws/codes.js';
import { backoffMs } from '../aws/retry.js';
import type { CallContext } from '../batch/call-context.js';
import type { WriteOutcome } from '../batch/session-batchers.js';
import { mapConcurrently, perRegion } from '../concurrency.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { chunks, writeGroups } from '../plan/batches.js';
import type { TagPlan } from '../plan/types.js';
import { reportedKeys } from '../legacy.js';
import { groupBy } from './group-by.js';
import type { Taggers } from './taggers/registry.js';
import type { Tagger, TaggerKind } from './taggers/tagger.js';
import type { GoneResource, TagFailure, Write } from './types.js';

export interface AppliedWrites {
  /** The writes AWS accepted, each with the ARNs it accepted them for. */
  accepted: Write[];
  failed: TagFailure[];
  gone: GoneResource[];
}

/**
 * The plan's writes: one per region, tagger and identical content, every ARN of it (cut into calls
 * later). A removal by a tagger that removes by value carries the values the plan saw, and resources
 * whose values differ get writes apart.
 */
export function planWrites(plan: TagPlan, taggers: Taggers): Write[] {
  const { tag, untag } = writeGroups(plan);
  const removals = new Map(plan.resources.map(({ arn, remove }) => [arn, remove]));
  /** The values the plan saw of `keys` on `arn`, in the order of `keys` (legacy keys have none). */
  const valuesOf = (arn: string, keys: readonly string[]): Record<string, string> => {
    const seen = new Map((removals.get(arn) ?? []).map(({ key, value }) => [key, value]));
    return Object.fromEntries(keys.flatMap((key) => (seen.has(key) ? [[key, seen.get(key)!]] : [])));
  };
  return [
    ...tag.flatMap(({ region, tags, arns }) =>
      taggers.group(arns).map(([tagger, own]): Write => {
        return { action: tagger.actions.set, region, tags, keys: Object.keys(tags), arns: own };
      }),
    ),
    ...untag.flatMap(({ region, keys, arns }) =>
      taggers.group(arns).flatMap(([tagger, own]): Write[] => {
        const action = tagger.actions.remove;
        if (!tagger.removesByValue) return [{ action, region, keys, arns: own }];
        const byValues = groupBy(
          own,
          (arn) => valuesOf(arn, keys),
          (values) => JSON.stringify(values),
        );
        return byValues.map(([values, same]) => ({ action, region, keys, values, arns: same }));
      }),
    ),
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
    applyInRegion(new RegionTaggers(context, region), context, inRegion, concurrency),
  );
  return {
    accepted: outcomes.flatMap(({ accepted }) => accepted),
    failed: outcomes.flatMap(({ failed }) => failed),
    gone: outcomes.flatMap(({ gone }) => gone),
  };
}

/** Each tagger's calls in one region, made on first use. */
class RegionTaggers {
  readonly #taggers = new Map<TaggerKind, Tagger>();

  constructor(
    private readonly context: CallContext,
    readonly region: string,
  ) {}

  get(kind: TaggerKind): Tagger {
    let tagger = this.#taggers.get(kind);
    if (tagger === undefined) {
      tagger = kind.create(this.context, this.region);
      this.#taggers.set(kind, tagger);
    }
    return tagger;
  }
}

async function applyInRegion(
  taggers: RegionTaggers,
  context: CallContext,
  writes: readonly Write[],
  concurrency: number,
): Promise<AppliedWrites> {
  const outcome: AppliedWrites = { accepted: [], failed: [], gone: [] };
  let pending = writes;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const calls = pending.flatMap((write) =>
      chunks(write.arns, context.taggers.ofAction(write.action).writeCapacity).map((arns) => ({ ...write, arns })),
    );
    const answers = await mapConcurrently(calls, concurrency, (call) => send(taggers, context, call));
    const retry = new Map<string, Write>();
    calls.forEach((call, index) => {
      const { accepted, failures } = answers[index]!;
      if (accepted.length > 0) outcome.accepted.push({ ...call, arns: accepted });
      for (const [arn, failure] of failures) {
        const kind = failureKind(failure);
        if (kind === 'Gone') {
          outcome.gone.push({ arn, region: call.region, code: failure.code, message: failure.message });
        } else if (isRetriable(kind) && attempt < context.retry.maxAttempts) {
          const key = contentOf(call);
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

/** What makes two writes of one region the same call: the action and what it sets or removes. */
const contentOf = (call: Write): string => JSON.stringify([call.action, call.tags ?? call.keys, call.values]);

/**
 * One write's calls, shared with the writes of other clusters of the same credentials and content
 * that wait for the rate limiter at the same time, or that are on their way (`SessionBatchers.joined`);
 * its failures, whole or per ARN, come back as values, for its own ARNs only.
 */
async function send(taggers: RegionTaggers, context: CallContext, call: Write): Promise<CallAnswer> {
  const kind = context.taggers.ofAction(call.action);
  const tagger = taggers.get(kind);
  const scope = context.batchers.scope(context.session, call.region);
  const content = JSON.stringify([scope, contentOf(call)]);
  const answered = context.batchers.writing(scope);
  const answer = await context.batchers
    .writes(kind.writeCapacity)
    .submit(
      content,
      call.arns,
      tagger.writes,
      (arns, grant, parts) => sendBatch(kind, tagger, call, arns, grant, parts),
      () => context.batchers.joined(scope, context.clock),
    )
    .finally(answered);
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
 * One call for `arns`. A whole call refused for a reason that may lie in one submission (a malformed
 * ARN, a refused value: not what the tagger says every part shares) is sent again part by part, so
 * that no cluster is told of another's failure.
 */
async function sendBatch(
  kind: TaggerKind,
  tagger: Tagger,
  call: Write,
  arns: string[],
  grant: Grant | undefined,
  parts: readonly (readonly string[])[],
): Promise<Map<string, WriteOutcome>> {
  try {
    return await tagger.write(call, arns, grant);
  } catch (error) {
    const failure = awsFailureOf(error);
    if (parts.length > 1 && !kind.sharedFailures.has(failureKind(failure))) {
      const apart = await Promise.all(parts.map((part) => sendBatch(kind, tagger, call, [...part], undefined, [part])));
      return new Map(apart.flatMap((answer) => [...answer]));
    }
    return new Map(arns.map((arn) => [arn, failure]));
  }
}
