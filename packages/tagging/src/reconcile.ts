import { compilePattern, REGION } from '@keymaster/api';
import { applyWrites, planWrites } from './apply/apply.js';
import { TAGGERS, type Taggers } from './apply/taggers/registry.js';
import { isRemoval, type GoneResource, type TagFailure, type Write } from './apply/types.js';
import { verifyWrites } from './apply/verify.js';
import { retryPolicy, type RetryPolicy } from './aws/retry.js';
import type { TaggingSession } from './aws/region-api.js';
import type { CallContext } from './batch/call-context.js';
import { SessionBatchers } from './batch/session-batchers.js';
import type { ClaimCheck } from './claim.js';
import { ClusterMemory } from './cluster-memory.js';
import { discoverResources, type DiscoveredResources } from './discovery.js';
import type { EffectiveTags } from './effective.js';
import { ClusterNameClaimedError, TaggingInputError } from './errors.js';
import { knownAfter } from './known-resources.js';
import { LEGACY_KEYS, legacyClaimsFound } from './legacy.js';
import { memoryAfter } from './memory-after.js';
import type { LayerName } from './problems.js';
import { checkClusterName, planTags } from './plan/plan.js';
import type { RemovalPolicy, TagPlan } from './plan/types.js';
import { systemClock, type TaggingClock } from './rate-limit/clock.js';
import type { RateLimiters } from './rate-limit/rate-limiters.js';
import { taggingEvents, type AppliedChange, type TaggingEvent } from './report/events.js';
import { failedArns, taggingStatus, type TaggingStatus } from './report/status.js';

/** Calls in flight at once per region and reconcile; the rate limiter decides when each goes. */
export const DEFAULT_CONCURRENCY = 4;

export interface ReconcileTagsInput {
  /** The cluster's session (from `IdentityResolver.resolve`), or any `{accountId, client}`. */
  session: TaggingSession;
  /** The name in the cluster's ownership tags (spec.clusterName, default metadata.name). */
  clusterName: string;
  /** spec.region, then spec.tagging.extraRegions (repeats are dropped). */
  regions: readonly string[];
  effective: EffectiveTags;
  /** status.tagging.managedTags. */
  managedTags?: Readonly<Record<string, string>>;
  /** spec.tagging.removalPolicy; default Retain. */
  removalPolicy?: RemovalPolicy;
  /** The layers whose dropped keys Delete may remove (`PlanInput.standingLayers`); default every layer. */
  standingLayers?: readonly LayerName[];
  /**
   * Who owns the cluster name in the account, asked once discovery has run and before any write. A
   * cluster that does not own it makes no write (`ClusterNameClaimedError`).
   */
  claim?: ClaimCheck;
  /** What Keymaster wrote on the cluster's resources (its ledger's memory): what Delete may remove. */
  memory?: ClusterMemory;
  /**
   * The resources this cluster's last reconcile left (`TagReconcileResult.known`), passed when only its
   * layers changed since: the writes are planned from it, without discovery. A plan that would remove
   * a tag, or convert legacy bookkeeping, discovers anyway: removals go by the live tags and the ledger.
   */
  known?: DiscoveredResources;
  /**
   * Convert the cluster's legacy bookkeeping tags (`PlanInput.convertLegacy`): their claims go to
   * `claim.decide`, their memory counts, and they are removed with the cluster's other removals.
   */
  convertLegacy?: boolean;
  /** Also find and tag resources whose ownership tag says `shared`. Default false. */
  includeShared?: boolean;
  /**
   * When the cluster's work was asked for (the clock's ms; default now): a scan of the account and
   * region begun since, for other clusters of the same credentials, may answer its discovery.
   */
  askedAt?: number;
  /**
   * Clusters of the same credentials whose work has yet to reach its writes in each region, this one
   * included (a scheduler's queue and the work running beside this), asked when discovery decides:
   * when enough, one scan of the region serves them all. Default: this one.
   */
  expectedClusters?: () => number;
  /**
   * Told once, right before the writes are submitted (or when the reconcile ends without): from then
   * on it waits only on AWS's budgets and answers. A scheduler may start other work meanwhile.
   */
  writesSubmitted?: () => void;
  /** Discover and plan, write nothing. */
  dryRun?: boolean;
  /** Aborted (the work was cancelled): nothing more is written; throws the signal's reason before the writes. */
  signal?: AbortSignal;
  /** The controller's one registry: clusters of one account share its limiter per region. */
  limiters: RateLimiters;
  /**
   * The controller's one registry of shared calls: clusters of the same credentials share writes of
   * the same content and read-backs per region. Default: a registry of this reconcile alone.
   */
  batchers?: SessionBatchers;
  /**
   * Which tagger writes each resource, by its ARN's service. Default: Keymaster's (`TAGGERS`: EC2's own
   * actions for EC2 resources, the Resource Groups Tagging API for the rest).
   */
  taggers?: Taggers;
  /** Default: the system clock. */
  clock?: TaggingClock;
  retry?: Partial<RetryPolicy>;
  /** Calls in flight at once per region. Default 4. */
  concurrency?: number;
}

export interface TagReconcileResult {
  dryRun: boolean;
  /** The plan, made from what discovery found: the dry run. */
  plan: TagPlan;
  /** What was applied and verified, per resource. */
  applied: AppliedChange[];
  /** What failed, per resource and write, with AWS's code and the action; in ARN order. */
  failed: TagFailure[];
  /** Discovered resources that no longer exist (AWS answered "not found"): neither synced nor failed; in ARN order. */
  gone: GoneResource[];
  /** For status.tagging. */
  status: TaggingStatus;
  /** Events worth recording on the AWSCluster; none when nothing changed or failed, or in a dry run. */
  events: TaggingEvent[];
  /** True when every resource is verified in sync: nothing failed, nothing over the limit, not a dry run. */
  synced: boolean;
  /** Requests sent, by IAM action: every attempt counts, the SDK's own retries too. */
  requests: Record<string, number>;
  /** What the ledger should remember now (`memoryAfter`): recorded only what AWS accepted and read back. */
  memory: ClusterMemory;
  /** The legacy bookkeeping tags were converted: every one the plan removes was removed (not in a dry run). */
  legacyConverted: boolean;
  /** Whether discovery ran (else the plan was made from `ReconcileTagsInput.known`). */
  discovered: boolean;
  /**
   * The resources and their tags as this reconcile left them (`knownAfter`), when it is synced and
   * converted no legacy bookkeeping: what the next reconcile may plan from (`ReconcileTagsInput.known`).
   */
  known?: DiscoveredResources;
}

/**
 * One cluster's tagging, start to end, with the cluster's own clients: discover its resources in each
 * region, plan, apply the plan's writes (batched, rate limited, retried), read the tags back, and
 * report. Per-resource failures are reported, not thrown; throws `TaggingInputError` for bad input
 * and `AwsCallError` / `TaggingAccessDeniedError` when discovery fails (no plan can be made then).
 */
export async function reconcileTags(input: ReconcileTagsInput): Promise<TagReconcileResult> {
  checkClusterName(input.clusterName);
  const regions = checkRegions(input.regions);
  const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TaggingInputError('concurrency', `is ${concurrency}`, 'Pass a whole number of at least 1.');
  }
  const context: CallContext = {
    session: input.session,
    limiters: input.limiters,
    batchers: input.batchers ?? new SessionBatchers(),
    taggers: input.taggers ?? TAGGERS,
    clock: input.clock ?? systemClock,
    retry: retryPolicy(input.retry),
    requests: {},
  };
  // Until this cluster's writes go, identical writes of its credentials wait for them to join.
  const notOnItsWay = context.batchers.coming(context.session, regions);
  let submitted = false;
  const arrived = () => {
    notOnItsWay();
    if (submitted) return;
    submitted = true;
    input.writesSubmitted?.();
  };
  try {
    return await reconcileWith(input, context, regions, concurrency, arrived);
  } finally {
    arrived();
  }
}

/** `reconcileTags` once its input is checked; `arrived` is called right before the writes are submitted. */
async function reconcileWith(
  input: ReconcileTagsInput,
  context: CallContext,
  regions: string[],
  concurrency: number,
  arrived: () => void,
): Promise<TagReconcileResult> {
  const { clusterName, effective, managedTags, removalPolicy, includeShared, standingLayers, claim } = input;
  const { askedAt, expectedClusters: expected } = input;
  const memory = input.memory ?? new ClusterMemory();
  const convertLegacy = input.convertLegacy === true;
  const planFrom = (found: DiscoveredResources) =>
    planTags({
      clusterName,
      effective,
      resources: found.resources,
      regions: found.regions,
      managedTags,
      removalPolicy,
      includeShared,
      standingLayers,
      memory,
      convertLegacy,
    });
  const fromKnown = convertLegacy || input.known === undefined ? undefined : planFrom(input.known);
  const discovery =
    fromKnown === undefined || fromKnown.resources.some(({ remove }) => remove.length > 0)
      ? await discoverResources(context, { clusterName, regions, includeShared, askedAt, expected })
      : undefined;
  const discovered = discovery ?? input.known!;
  input.signal?.throwIfAborted();
  const legacyClaims = convertLegacy ? legacyClaimsFound(discovered.resources, clusterName) : new Set<string>();
  const verdict = await claim?.decide(legacyClaims);
  if (verdict?.owner === false) throw new ClusterNameClaimedError(verdict.message);
  input.signal?.throwIfAborted();
  const plan = discovery === undefined ? fromKnown! : planFrom(discovery);
  const dryRun = input.dryRun === true;
  arrived();
  const written = dryRun
    ? { accepted: [], failed: [], gone: [] }
    : await applyWrites(context, planWrites(plan, context.taggers), concurrency);
  const checked = await verifyWrites(context, written.accepted, concurrency);
  const failed = [...written.failed, ...checked.failed].sort(byArn);
  const applied = appliedChanges(checked.verified);
  const gone = written.gone.sort(byArn);
  const resources = discovered.resources;
  const untagFailed = new Set(failed.filter(({ action }) => isRemoval(action)).map(({ arn }) => arn));
  const synced = !dryRun && failedArns(plan, failed, gone).size === 0;
  return {
    dryRun,
    plan,
    applied,
    failed,
    gone,
    status: taggingStatus(plan, { failed, gone, dryRun }, managedTags),
    events: dryRun ? [] : taggingEvents(plan, { accountId: input.session.accountId, applied, failed }),
    synced,
    requests: context.requests,
    memory: memoryAfter({ memory, plan, resources, applied, gone, convertLegacy, dryRun }),
    legacyConverted:
      convertLegacy && !dryRun && plan.resources.every(({ arn, legacyTags }) => !legacyTags || !untagFailed.has(arn)),
    discovered: discovery !== undefined,
    ...(synced && !convertLegacy ? { known: knownAfter(discovered, applied, gone) } : {}),
  };
}

function checkRegions(regions: readonly string[]): string[] {
  const unique = [...new Set(regions)];
  if (unique.length === 0) {
    throw new TaggingInputError('regions', 'is empty', 'Pass spec.region, then spec.tagging.extraRegions.');
  }
  const bad = unique.find((region) => !compilePattern(REGION).test(region));
  if (bad !== undefined) {
    throw new TaggingInputError(
      `regions`,
      `holds ${JSON.stringify(bad)}, not an AWS region`,
      'Use names such as eu-west-1.',
    );
  }
  return unique;
}

const byArn = (a: { arn: string }, b: { arn: string }) => (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0);

/** The verified writes of the layers' tags (not the legacy bookkeeping removed), per resource in ARN order. */
function appliedChanges(verified: readonly Write[]): AppliedChange[] {
  const changes = new Map<string, { region: string; set: [string, string][]; removed: string[] }>();
  for (const write of verified) {
    const set = Object.entries(write.tags ?? {});
    const removed = write.tags ? [] : write.keys.filter((key) => !LEGACY_KEYS.includes(key));
    if (set.length === 0 && removed.length === 0) continue;
    for (const arn of write.arns) {
      const change = changes.get(arn) ?? { region: write.region, set: [], removed: [] };
      change.set.push(...set);
      change.removed.push(...removed);
      changes.set(arn, change);
    }
  }
  return [...changes.entries()]
    .map(([arn, { region, set, removed }]) => ({ arn, region, set: Object.fromEntries(set), removed }))
    .sort(byArn);
}
