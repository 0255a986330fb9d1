import { mkdir, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { CallSummary } from '@keymaster/aws-emulator';
import { AWS_BUDGETS } from '@keymaster/api';
import { batchPlan, planTags, type BudgetStats, type TagReconcileResult } from '../src/index.js';
import { CLUSTER } from '../test/fixtures.js';
import { clusterInstances, REGIONS, taggingWorld } from '../test/support/aws-world.js';
import { EFFECTIVE, EFFECTIVE_VALUES, startHarness } from '../test/support/harness.js';

/**
 * `pnpm bench`: discovery, plan, apply and verification of 10,000 resources in three regions against
 * the aws-emulator, through the real SDK. The limiters run on the emulator's clock, so the times are
 * Keymaster's and the emulator's own work; the time AWS's pace adds is worked out from the requests
 * made. Figures go to stdout and to .bench/tagging.json at the repository root; docs/tagging.md
 * quotes them.
 */
const COUNTS = [4_000, 3_500, 2_500];
const WRITES = ['tag:TagResources', 'tag:UntagResources'];

const world = taggingWorld(REGIONS.flatMap((region, i) => clusterInstances(region, COUNTS[i]!)));
const initial = world.accounts[0]!.resources!;
const resources = Object.fromEntries(initial.map(({ arn, tags }) => [arn, tags ?? {}]));

// The plan alone: a pure function of 10,000 resources' tags.
const planMs = median(
  Array.from({ length: 5 }, () => {
    const started = performance.now();
    batchPlan(planTags({ clusterName: CLUSTER, effective: EFFECTIVE, resources }));
    return performance.now() - started;
  }),
);
console.log(`plan of 10,000 resources: ${planMs.toFixed(1)} ms (median of 5)`);

const h = await startHarness(world);
const { aws } = h;

const figures = [
  await pass('first pass: all 10,000 to tag', () => h.reconcile()),
  await pass('second pass: nothing changed', () => h.reconcile({ managedTags: EFFECTIVE_VALUES })),
];
aws.world.putResources(
  initial.slice(0, 100).map(({ arn, tags }) => ({ arn, tags: { ...tags, ...EFFECTIVE_VALUES, team: 'x' } })),
);
figures.push(await pass('drift on 100 resources', () => h.reconcile({ managedTags: EFFECTIVE_VALUES })));
aws.world.putResources(initial);
aws.faults.add({ action: 'tag:*', errorCode: 'ThrottledException', rate: 0.2 });
figures.push(
  await pass('all 10,000 to tag, 20% throttled', () =>
    h.reconcile({ managedTags: EFFECTIVE_VALUES, retry: { maxAttempts: 10 } }),
  ),
);
await h.stop();

const out = new URL('../../../.bench/', import.meta.url);
await mkdir(out, { recursive: true });
const report = { node: process.version, resources: 10_000, planMs: round(planMs), limits: AWS_BUDGETS, figures };
await writeFile(new URL('tagging.json', out), JSON.stringify(report, null, 2) + '\n');

/** One reconcile: its time, the requests made, and the writes that went through against the fewest possible. */
async function pass(name: string, run: () => Promise<TagReconcileResult>) {
  aws.calls.reset();
  const before = h.limiters.stats();
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  const summary = aws.calls.summary();
  const batches = batchPlan(result.plan);
  const figure = {
    pass: name,
    seconds: round(seconds),
    requests: result.requests,
    throttled: sum(Object.values(summary.errors).map((codes) => codes.ThrottledException ?? 0)),
    // A throttled call changes nothing: the calls that went through, against the fewest batching allows.
    writesThrough: sum(WRITES.map((action) => through(summary, action))),
    minimumWrites: batches.tag.length + batches.untag.length,
    resourcesInSync: result.status.resourcesInSync,
    synced: result.synced,
    // The limiters run side by side: the busiest sets the pace, its burst at once, then its rate.
    secondsAtDefaultLimits: round(Math.max(...h.limiters.stats().map((stats) => budgetSeconds(stats, before)))),
  };
  console.log(
    `${name}: ${figure.seconds} s, requests ${JSON.stringify(result.requests)}, ${figure.throttled} throttled, ` +
      `${figure.writesThrough} writes went through (fewest possible ${figure.minimumWrites}), ` +
      `${figure.resourcesInSync} in sync; at AWS's quotas: ${figure.secondsAtDefaultLimits} s`,
  );
  return figure;
}

/** The time one limiter's budget needs for the requests it let through since `before`. */
function budgetSeconds(stats: BudgetStats, before: readonly BudgetStats[]): number {
  const earlier = before.find(
    (b) => b.accountId === stats.accountId && b.region === stats.region && b.family === stats.family,
  );
  const { burst, ratePerSecond } = AWS_BUDGETS[stats.family];
  return Math.max(0, stats.granted - (earlier?.granted ?? 0) - burst) / ratePerSecond;
}

function through(summary: CallSummary, action: string): number {
  return (summary.byAction[action] ?? 0) - (summary.errors[action]?.ThrottledException ?? 0);
}

function median(numbers: number[]): number {
  return numbers.sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;
}

function sum(numbers: number[]): number {
  return numbers.reduce((total, n) => total + n, 0);
}

function round(n: number): number {
  return Number(n.toFixed(2));
}
