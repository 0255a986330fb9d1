import { getAllResources, MAX_RESOURCES_PER_PAGE } from '../aws/get-resources.js';
import { TaggingApi } from '../aws/tagging-api.js';
import type { CallContext } from '../batch/call-context.js';
import type { ReadOutcome } from '../batch/session-batchers.js';
import { mapConcurrently, perRegion } from '../concurrency.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { chunks } from '../plan/batches.js';
import { AwsCallError } from '../errors.js';
import { reportedKeys } from '../legacy.js';
import { entry } from '../records.js';
import type { TagFailure, Write } from './types.js';

export interface VerifiedWrites {
  /** The accepted writes whose effect reading back shows, each with its ARNs. */
  verified: Write[];
  /** The accepted writes whose effect reading back does not show (or could not read). */
  failed: TagFailure[];
}

/**
 * Reads back the tags of every resource AWS accepted a write for (GetResources with
 * `ResourceARNList`, 100 ARNs a call) and checks that each write took effect, so that a resource is
 * only ever reported in sync when its tags are seen to be. A read that keeps failing leaves its
 * resources unverified, which counts as failed: the next reconcile looks again.
 */
export async function verifyWrites(
  context: CallContext,
  accepted: readonly Write[],
  concurrency: number,
): Promise<VerifiedWrites> {
  const outcomes = await perRegion(accepted, async (region, writes) => {
    const live = await readBack(new TaggingApi(context, region), context, writes, concurrency);
    return writes.map((write) => check(write, live));
  });
  return {
    verified: outcomes.flat().flatMap(({ verified }) => (verified.arns.length > 0 ? [verified] : [])),
    failed: outcomes.flat().flatMap(({ failed }) => failed),
  };
}

/**
 * ARN -> what reading it back gave; ARNs that GetResources did not list are absent. The reads are
 * shared with other clusters of the same credentials reading back at the same time (`SessionBatchers`).
 */
async function readBack(api: TaggingApi, context: CallContext, writes: readonly Write[], concurrency: number) {
  const arns = [...new Set(writes.flatMap((write) => write.arns))];
  const content = JSON.stringify([context.batchers.scope(context.session, api.region), 'read']);
  const live = new Map<string, ReadOutcome>();
  await mapConcurrently(chunks(arns, MAX_RESOURCES_PER_PAGE), concurrency, async (part) => {
    const answer = await context.batchers.reads.submit(content, part, api.reads, (batch, grant) =>
      readBatch(api, context, batch, grant),
    );
    for (const [arn, read] of answer) live.set(arn, read);
  });
  return live;
}

/** One read by ARN; a read that keeps failing leaves every ARN of it with the failure. */
async function readBatch(api: TaggingApi, context: CallContext, ResourceARNList: string[], grant: Grant) {
  const read = new Map<string, ReadOutcome>();
  try {
    for (const { arn, tags } of await getAllResources(api, context, { ResourceARNList }, grant))
      read.set(arn, { tags });
  } catch (error) {
    if (!(error instanceof AwsCallError)) throw error;
    for (const arn of ResourceARNList) read.set(arn, { failure: { code: error.awsCode, message: error.message } });
  }
  return read;
}

function check(write: Write, live: Map<string, ReadOutcome>) {
  const verified: Write = { ...write, arns: [] };
  const failed: TagFailure[] = [];
  for (const arn of write.arns) {
    const problem = mismatch(write, live.get(arn));
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
function mismatch(write: Write, read: ReadOutcome | undefined): { code: string; message: string } | undefined {
  const verb = write.action === 'tag:TagResources' ? 'TagResources' : 'UntagResources';
  if (read === undefined) {
    return { code: 'NotVerified', message: `${verb} succeeded but GetResources no longer lists the resource` };
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
  return { code: 'NotVerified', message: `${verb} succeeded but GetResources shows ${wrong.join(', ')}` };
}
