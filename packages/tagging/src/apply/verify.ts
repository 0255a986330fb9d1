import type { CallContext } from '../batch/call-context.js';
import type { ReadOutcome } from '../batch/session-batchers.js';
import { mapConcurrently, perRegion } from '../concurrency.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { chunks } from '../plan/batches.js';
import { AwsCallError } from '../errors.js';
import { reportedKeys } from '../legacy.js';
import { entry } from '../records.js';
import type { Tagger } from './taggers/tagger.js';
import type { TagFailure, Write } from './types.js';

export interface VerifiedWrites {
  /** The accepted writes whose effect reading back shows, each with its ARNs. */
  verified: Write[];
  /** The accepted writes whose effect reading back does not show (or could not read). */
  failed: TagFailure[];
}

/**
 * Reads back the tags of every resource AWS accepted a write for, with its tagger's read (GetResources
 * by ARN, 100 a call; EC2's DescribeTags by resource ID, 200 a call), and checks that each write took
 * effect, so that a resource is only ever reported in sync when its tags are seen to be. A read that
 * keeps failing leaves its resources unverified, which counts as failed: the next reconcile looks again.
 */
export async function verifyWrites(
  context: CallContext,
  accepted: readonly Write[],
  concurrency: number,
): Promise<VerifiedWrites> {
  const outcomes = await perRegion(accepted, async (region, writes) => {
    const live = await readBack(context, region, writes, concurrency);
    return writes.map((write) => check(write, readerOf(context, write), live));
  });
  return {
    verified: outcomes.flat().flatMap(({ verified }) => (verified.arns.length > 0 ? [verified] : [])),
    failed: outcomes.flat().flatMap(({ failed }) => failed),
  };
}

/**
 * ARN -> what reading it back gave; ARNs that the read did not list are absent. The reads are shared
 * with other clusters of the same credentials reading back at the same time, and wait for those whose
 * writes are on their way to their answers (`SessionBatchers.answered`).
 */
async function readBack(context: CallContext, region: string, writes: readonly Write[], concurrency: number) {
  const arns = [...new Set(writes.flatMap((write) => write.arns))];
  // What `check` looks at: the keys written, whichever resource they were written on.
  const keys = [...new Set(writes.flatMap((write) => write.keys))].sort();
  const scope = context.batchers.scope(context.session, region);
  const reads = context.taggers.group(arns).flatMap(([kind, own]) => {
    const tagger = kind.create(context, region);
    return chunks(own, kind.readCapacity).map((part) => ({ kind, tagger, part }));
  });
  const live = new Map<string, ReadOutcome>();
  await mapConcurrently(reads, concurrency, async ({ kind, tagger, part }) => {
    const content = JSON.stringify([scope, 'read', kind.name, ...(kind.readsByKey ? keys : [])]);
    const answer = await context.batchers.reads(kind.readCapacity).submit(
      content,
      part,
      tagger.reads,
      (batch, grant) => readBatch(tagger, batch, grant, keys),
      () => context.batchers.answered(scope, context.clock),
    );
    for (const [arn, read] of answer) live.set(arn, read);
  });
  return live;
}

/** One read; a read that keeps failing leaves every ARN of it with the failure. */
async function readBatch(
  tagger: Tagger,
  arns: string[],
  grant: Grant,
  keys: readonly string[],
): Promise<Map<string, ReadOutcome>> {
  try {
    return await tagger.read(arns, grant, keys);
  } catch (error) {
    if (!(error instanceof AwsCallError)) throw error;
    return new Map(arns.map((arn) => [arn, { failure: { code: error.awsCode, message: error.message } }]));
  }
}

/** The name of the call that reads back what `write` did (`GetResources`, `DescribeTags`). */
const readerOf = (context: CallContext, write: Write): string =>
  context.taggers.ofAction(write.action).readAction.split(':')[1]!;

function check(write: Write, reader: string, live: Map<string, ReadOutcome>) {
  const verified: Write = { ...write, arns: [] };
  const failed: TagFailure[] = [];
  for (const arn of write.arns) {
    const problem = mismatch(write, reader, live.get(arn));
    if (problem === undefined) {
      verified.arns.push(arn);
    } else {
      const { action, region } = write;
      failed.push({ arn, region, action, kind: 'NotVerified', keys: reportedKeys(write.keys), ...problem });
    }
  }
  return { verified, failed };
}

/** What reading back shows that the write did not do, as a failure's code and message. */
function mismatch(
  write: Write,
  reader: string,
  read: ReadOutcome | undefined,
): { code: string; message: string } | undefined {
  const verb = write.action.split(':')[1]!;
  if (read === undefined) {
    return { code: 'NotVerified', message: `${verb} succeeded but ${reader} no longer lists the resource` };
  }
  if ('failure' in read) {
    return {
      code: read.failure.code,
      message: `${verb} succeeded but reading the tags back failed: ${read.failure.message}`,
    };
  }
  // Every key is checked, bookkeeping too; the message names the layers' keys first.
  const wrongKeys = write.keys.filter((key) => {
    const value = entry(read.tags, key);
    return write.tags === undefined ? value !== undefined : value !== write.tags[key];
  });
  if (wrongKeys.length === 0) return undefined;
  const wrong = reportedKeys(wrongKeys).map((key) => {
    if (write.tags === undefined) return `${key} is still there`;
    const value = entry(read.tags, key);
    return `${key} is ${value === undefined ? 'missing' : JSON.stringify(value)}, not ${JSON.stringify(write.tags[key])}`;
  });
  return { code: 'NotVerified', message: `${verb} succeeded but ${reader} shows ${wrong.join(', ')}` };
}
