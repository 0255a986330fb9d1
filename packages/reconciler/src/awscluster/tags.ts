import { isDeepStrictEqual } from 'node:util';
import {
  CLUSTER_API_LAYER,
  CLUSTER_NAME_TAG_KEYS,
  EventReason,
  ownershipTagKeys,
  TagsInSyncReason,
  type AWSCluster,
  type ClusterTaggingStatus,
  type ConditionUpdate,
  type TagConflict,
  type TagPlanStatus,
} from '@keymaster/api';
import type { IdentityObject, IdentitySession } from '@keymaster/identity';
import {
  CLUSTER_API_CONFLICT_FIX,
  ClusterNameClaimedError,
  RateLimiters,
  SessionBatchers,
  TaggingAccessDeniedError,
  reconcileTags,
  type ClaimCheck,
  type DiscoveredResources,
  type TagFailure,
  type TagReconcileResult,
} from '@keymaster/tagging';
import type { EventType } from '../kube/events.js';
import type { Logger } from '../logging.js';
import { LEDGER_MAX_BYTES, type ClusterLedger } from './cluster-ledger.js';
import { clusterNameOf, regionsOf } from './name-claim.js';
import { clusterTagInput, type ClusterLayerInputs } from './tag-input.js';

/** What a cluster's tag work acts on. */
export interface TagWork {
  cluster: AWSCluster;
  session: IdentitySession;
  chain: IdentityObject[];
  /** The global tag policy and those that select the cluster, and whether its ClusterAPI layer is read. */
  policies: ClusterLayerInputs;
  /** The cluster's ledger, read when the work runs (a work before it may have written it). */
  ledger: () => ClusterLedger;
  /** Who owns the cluster name, asked once discovery has run; an owner records its claim in `ledger`. */
  claim: (ledger: ClusterLedger) => ClaimCheck;
  /** What the cluster's last synced work left, when only its layers changed since (`KnownResources`). */
  known?: DiscoveredResources;
}

/** A cluster's tag work on the inputs given. */
/** What tagging reports back to the reconcile. */
export interface TagOutcome {
  condition: ConditionUpdate;
  status: ClusterTaggingStatus;
  events: { type: EventType; reason: string; message: string }[];
  /** Whether to retry with backoff (AWS trouble), after the status is written. */
  transient: boolean;
  /** Another AWSCluster owns the cluster's name in its account: nothing was written. */
  claimRefused: boolean;
  /** Tags were written (and verified) on AWS: drift was corrected, or the effective tags changed. */
  wrote: boolean;
  /** Keys under keymaster.dev/ on the cluster's resources that Keymaster ignores (it writes none); absent when not looked at. */
  ignoredBookkeepingKeys?: string[];
  /** The resources as a synced work left them (`TagReconcileResult.known`): what a layer edit may plan from. */
  known?: DiscoveredResources;
}

export type SyncTags = (work: TagWork, log: Logger, options?: TagWorkOptions) => Promise<TagOutcome>;

export interface TagWorkOptions {
  /** Aborted when the work is cancelled: nothing more is written, and it throws. */
  signal?: AbortSignal;
  /** When the cluster's reconcile was queued: discovery may use a scan begun since (`reconcileTags`' askedAt). */
  askedAt?: number;
  /** Clusters of the account and region whose work has yet to submit writes, this one included (`reconcileTags`' expectedClusters). */
  expectedClusters?: () => number;
  /** Told once the work's writes are submitted (`reconcileTags`' writesSubmitted). */
  writesSubmitted?: () => void;
}

const inSync = (message: string): ConditionUpdate<'TagsInSync'> => ({
  type: 'TagsInSync',
  status: 'True',
  reason: TagsInSyncReason.TagsInSync,
  message,
});
const outOfSync = (reason: TagsInSyncReason, message: string): ConditionUpdate<'TagsInSync'> => ({
  type: 'TagsInSync',
  status: 'False',
  reason,
  message,
});

const describeConflict = ({ key, winner, loser }: TagConflict) =>
  winner.layer === CLUSTER_API_LAYER
    ? `tag "${key}": ${loser.object} (${loser.layer}) asks for "${loser.value}", but CAPA holds it: ${winner.object} sets "${winner.value}", which CAPA writes; ${CLUSTER_API_CONFLICT_FIX}`
    : `tag "${key}": ${loser.object} (${loser.layer}) asks for "${loser.value}", but ${winner.object} (${winner.layer}${winner.overridePolicy === 'Deny' ? ', overridePolicy: Deny' : ''}) sets "${winner.value}", which is applied`;

function failureSummary(failures: readonly TagFailure[]): string {
  const first = failures[0]!;
  const resources = new Set(failures.map(({ arn }) => arn)).size;
  return `${first.action} failed on ${resources} resource(s) in ${first.region}: ${first.code}: ${first.message}`;
}

/** TagsInSync after a dry run: in sync when nothing would change, else what would (status.tagging.plan has the first changes). */
function dryRunCondition(
  plan: TagPlanStatus | undefined,
  resources: number,
  ignored: string,
): ConditionUpdate<'TagsInSync'> {
  const { resourcesToChange = 0, tagsToAdd = 0, tagsToUpdate = 0, tagsToRemove = 0, tagsWithheld = 0 } = plan ?? {};
  const dryRun = 'Dry run (spec.tagging.dryRun): nothing was written';
  if (resourcesToChange === 0)
    return {
      ...inSync(`${dryRun}, and all ${resources} resource(s) carry the effective tags${ignored}`),
      reason: TagsInSyncReason.DryRun,
    };
  const withheld = tagsWithheld > 0 ? `, ${tagsWithheld} withheld by the 50-tag limit` : '';
  return outOfSync(
    TagsInSyncReason.DryRun,
    `${dryRun}. ${resourcesToChange} of ${resources} resource(s) would change: ${tagsToAdd} tag(s) to add, ${tagsToUpdate} to update, ${tagsToRemove} to remove${withheld}. status.tagging.plan lists the first changes, \`keymaster plan\` all of them; set spec.tagging.dryRun to false to apply them${ignored}`,
  );
}

/**
 * TagsInSync's message when discovery found nothing: still in sync (a cluster being created has no
 * resources yet, which is no failure), but a region or cluster name that is wrong looks the same, so
 * it says where it looked and what to check.
 */
export function nothingFoundMessage(cluster: AWSCluster, accountId: string): string {
  const name = clusterNameOf(cluster);
  const extra = cluster.spec.tagging?.extraRegions?.length ? ' (or spec.tagging.extraRegions)' : '';
  return (
    `No resource found with the ownership tags of cluster name "${name}" (${ownershipTagKeys(name).join(', ')}) ` +
    `nor ${CLUSTER_NAME_TAG_KEYS.map((key) => `${key}=${name}`).join(', ')} ` +
    `in ${regionsOf(cluster).join(', ')} of account ${accountId}: nothing to tag. If the cluster has resources, ` +
    `check spec.region${extra} and spec.clusterName (default: metadata.name)`
  );
}

/** TagsInSync for a finished tag reconcile: the worst outcome wins. */
function tagCondition(
  result: TagReconcileResult,
  ignored: string,
  nothingFound: string,
): ConditionUpdate<'TagsInSync'> {
  const { status, failed, plan } = result;
  if (result.dryRun) return dryRunCondition(status.plan, status.resourcesDiscovered, ignored);
  const denied = failed.filter(({ kind }) => kind === 'AccessDenied');
  if (denied.length > 0) {
    return outOfSync(
      TagsInSyncReason.AccessDenied,
      `${failureSummary(denied)}. Allow ${denied[0]!.action} to the cluster's identity, and each service's own tagging action (ec2:CreateTags, elasticloadbalancing:AddTags, ...).`,
    );
  }
  const overLimit = plan.resources.filter(({ outcome }) => outcome === 'OverLimit');
  if (overLimit.length > 0) {
    const examples = overLimit
      .slice(0, 3)
      .map(({ arn }) => arn)
      .join(', ');
    return outOfSync(
      TagsInSyncReason.TagLimitExceeded,
      `${overLimit.length} resource(s) would carry more than 50 user tags, so nothing was added to them (${examples}). Remove unmanaged tags from them, or tags from a layer.`,
    );
  }
  const unverified = failed.filter(({ kind }) => kind === 'NotVerified');
  const other = failed.filter(({ kind }) => kind !== 'NotVerified');
  if (other.length > 0)
    return outOfSync(TagsInSyncReason.TaggingFailed, `${failureSummary(other)}. Retrying with backoff.`);
  if (unverified.length > 0)
    return outOfSync(
      TagsInSyncReason.TagDrift,
      `Tags of ${unverified.length} resource(s) still differ after writing: something else is changing them. Retrying.`,
    );
  if (status.resourcesDiscovered === 0) return inSync(`${nothingFound}${ignored}`);
  return inSync(
    `${status.resourcesInSync} of ${status.resourcesDiscovered} resource(s) carry the effective tags (${Object.keys(status.managedTags).length} managed keys)${ignored}`,
  );
}

/**
 * The tag step of the AWSCluster reconcile: the effective tags of the three layers (global policy,
 * the identity chain, the cluster), reconciled on the cluster's resources with its own session, and
 * told back as a condition, status.tagging and events.
 */
export function createTagSync(deps: {
  limiters?: RateLimiters;
  /** How long a new tag policy or identity waits before the Delete policy may remove what it drops. */
  layerGracePeriodMs?: number;
  now?: () => Date;
}): SyncTags {
  // One registry for the whole controller: clusters of one account share its budget per region.
  const limiters = deps.limiters ?? new RateLimiters();
  // And clusters of the same credentials share writes of the same change, and read-backs, per region.
  const batchers = new SessionBatchers();
  const now = deps.now ?? (() => new Date());
  return async (work, log, { signal, askedAt, expectedClusters, writesSubmitted } = {}) => {
    const { cluster, session, chain, policies } = work;
    // A copy: what this returns as status is the reconcile's to change, and this one is the informer's.
    const previous: ClusterTaggingStatus = { ...cluster.status?.tagging };
    if (cluster.spec.tagging?.paused) {
      return {
        condition: outOfSync(TagsInSyncReason.TaggingPaused, 'spec.tagging.paused is true: tags are left as they are'),
        status: previous,
        events: [],
        transient: false,
        claimRefused: false,
        wrote: false,
      };
    }
    const ledger = work.ledger();
    const input = clusterTagInput(cluster, chain, policies, {
      now: now(),
      layerGracePeriodMs: deps.layerGracePeriodMs,
    });
    const { problems } = input.effective;
    const ignored = problems.length > 0 ? `; ignored: ${problems.map(({ message }) => message).join('; ')}` : '';
    let result: TagReconcileResult;
    try {
      result = await reconcileTags({
        ...input,
        session,
        claim: work.claim(ledger),
        memory: ledger.memory,
        convertLegacy: ledger.convertLegacy,
        limiters,
        batchers,
        dryRun: cluster.spec.tagging?.dryRun === true,
        ...(work.known ? { known: work.known } : {}),
        ...(askedAt === undefined ? {} : { askedAt }),
        ...(expectedClusters === undefined ? {} : { expectedClusters }),
        ...(writesSubmitted === undefined ? {} : { writesSubmitted }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      // Cancelled work has no outcome: nobody waits for it.
      if (signal?.aborted) throw error;
      if (error instanceof ClusterNameClaimedError) return claimedOutcome(error.message);
      log.warn('tag discovery failed', { error });
      const message = (error as Error).message;
      const condition =
        error instanceof TaggingAccessDeniedError
          ? outOfSync(TagsInSyncReason.AccessDenied, message)
          : outOfSync(TagsInSyncReason.TaggingFailed, message);
      return {
        condition,
        status: previous,
        events: [{ type: 'Warning', reason: condition.reason, message }],
        transient: true,
        claimRefused: false,
        wrote: false,
      };
    }
    // Recorded once AWS accepted and read back the writes: a crash before loses memory, so that Delete
    // removes less, never more.
    const { full } = await ledger.record(result.memory, result.legacyConverted);
    const drifted = result.plan.resources.filter(
      ({ outcome }) => outcome === 'Change' || outcome === 'OverLimit',
    ).length;
    const nothingFound = nothingFoundMessage(cluster, session.accountId);
    const condition = tagCondition(result, ignored, nothingFound);
    const events: TagOutcome['events'] = [...result.events];
    if (full)
      events.push({
        type: 'Warning',
        reason: EventReason.LedgerFull,
        message: `The AWSClusterLedger of this cluster would pass ${LEDGER_MAX_BYTES / 1024} KiB: what Keymaster wrote since was not all recorded there, so removalPolicy Delete will not remove those values. Split the cluster's resources, or remove keys it no longer needs by hand.`,
      });
    if (result.legacyConverted) log.info('legacy bookkeeping tags converted into the ledger and removed');
    // Normal, not Warning: an empty cluster is no failure; told once, when TagsInSync first says so.
    const before = cluster.status?.conditions?.find(({ type }) => type === 'TagsInSync')?.message;
    if (condition.message.startsWith(nothingFound) && !before?.startsWith(nothingFound))
      events.push({ type: 'Normal', reason: EventReason.NoResourcesFound, message: nothingFound });
    if (!isDeepStrictEqual(result.status.conflicts, previous.conflicts ?? [])) {
      const known = new Set((previous.conflicts ?? []).map((conflict) => JSON.stringify(conflict)));
      for (const conflict of result.status.conflicts)
        if (!known.has(JSON.stringify(conflict)))
          events.push({ type: 'Warning', reason: EventReason.TagConflict, message: describeConflict(conflict) });
    }
    if (
      ignored &&
      cluster.status?.conditions?.find(({ type }) => type === 'TagsInSync')?.message !== condition.message
    ) {
      events.push({ type: 'Warning', reason: EventReason.InvalidTags, message: ignored.slice('; ignored: '.length) });
    }
    if (drifted > 0 || result.failed.length > 0)
      log.info('tags reconciled', {
        drifted,
        applied: result.applied.length,
        failed: result.failed.length,
        requests: result.requests,
      });
    return {
      condition,
      status: result.status,
      events,
      transient: result.failed.some(({ kind }) => kind !== 'AccessDenied'),
      claimRefused: false,
      wrote: result.applied.length > 0,
      ignoredBookkeepingKeys: result.plan.ignoredBookkeepingKeys,
      ...(result.known ? { known: result.known } : {}),
    };
  };
}

/** The outcome of a cluster whose name another AWSCluster owns in its account: nothing was written. */
export function claimedOutcome(message: string): TagOutcome {
  const error = new ClusterNameClaimedError(message);
  const condition = outOfSync(TagsInSyncReason.ClusterNameClaimed, `${error.message}. ${error.hint ?? ''}`.trim());
  return {
    condition,
    status: {},
    events: [{ type: 'Warning', reason: condition.reason, message: condition.message }],
    transient: false,
    claimRefused: true,
    wrote: false,
  };
}
