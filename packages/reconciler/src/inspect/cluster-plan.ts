import {
  PAUSED_ANNOTATION,
  type AWSCluster,
  type ClusterTaggingStatus,
  type IdentityKind,
  type IdentityLink,
  type TagConflict,
  type TagPlanChange,
  type TagSource,
} from '@keymaster/api';
import { CONTROLLER_IDENTITY, IdentityError, type IdentitySession } from '@keymaster/identity';
import {
  ClusterNameClaimedError,
  planChanges,
  reconcileTags,
  resolveEffectiveTags,
  summarizePlan,
  tagLayers,
  type PlanSummary,
  type TagPlan,
} from '@keymaster/tagging';
import { clusterLayerInputs, clusterTagInput, type ClusterLayerInputs } from '../awscluster/tag-input.js';
import { clusterUser } from '../awsclusteridentity/deletions.js';
import type { InspectContext } from './context.js';
import { claimCheckFor } from './name-claim.js';
import { clusterKeyOf } from './targets.js';
import {
  accountRefusal,
  failureOf,
  isForbidden,
  leaveOut,
  readable,
  readableChain,
  type Failure,
  type Unchecked,
} from './unchecked.js';

/** Clusters planned at once. */
const PLANS_AT_ONCE = 4;

/**
 * One cluster's dry run. `Planned`: the plan, with the principal it was made as. `Partial`: the user
 * may not read what planning against AWS takes (a tenant: the namespace's labels, the controller's
 * Secrets), so only the tags the layers it may read give, and what the controller last synced; what was
 * not checked, and why, in `unchecked`. Otherwise why not: `Refused` (the identity chain or the
 * account, as the controller would refuse it), `ClusterNameClaimed` (another AWSCluster owns the name in
 * that account: nothing of its resources is told) or `Failed` (discovery, or anything else, failed).
 */
export interface ClusterPlanReport {
  /** namespace/name. */
  cluster: string;
  outcome: 'Planned' | 'Partial' | 'Refused' | 'ClusterNameClaimed' | 'Failed';
  /** What the controller itself does with this cluster, when not simply apply the plan (paused, dry run, ...). */
  notes: string[];
  accountId?: string;
  principalArn?: string;
  chain?: IdentityLink[];
  regions?: string[];
  summary?: Omit<PlanSummary, 'managedTags'>;
  /** Every change, one key of one resource per row, in ARN then key order. */
  changes?: TagPlanChange[];
  conflicts?: TagConflict[];
  /** Tags left out of the layers, each naming layer, object, key and rule. */
  problems?: string[];
  plan?: TagPlan;
  /** AWS requests the plan took, by IAM action: reads only. */
  requests?: Record<string, number>;
  failure?: Failure;
  /** `Partial`: the tags the layers the user may read give, each with its winning layer. */
  tags?: Record<string, TagSource>;
  /** `Partial`: the keys CAPA holds (the ClusterAPI layer), which Keymaster neither writes nor removes. */
  held?: Record<string, TagSource>;
  /** `Partial`: the counts the controller last wrote (`status.tagging`), when it has synced. */
  lastSync?: Pick<ClusterTaggingStatus, 'summary' | 'resourcesDrifted' | 'lastSyncTime'>;
  /** `Partial`: what was not checked, why (the read refused) and the fix. */
  unchecked?: Unchecked[];
}

function notesOf(cluster: AWSCluster): string[] {
  const notes: string[] = [];
  if (cluster.metadata.deletionTimestamp) notes.push('being deleted: the controller applies nothing, tags stay on AWS');
  if (cluster.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined)
    notes.push(`paused by the annotation ${PAUSED_ANNOTATION}: the controller applies nothing`);
  if (cluster.spec.tagging?.paused) notes.push('spec.tagging.paused: the controller applies nothing');
  if (cluster.spec.tagging?.dryRun) notes.push('spec.tagging.dryRun: the controller plans as here and applies nothing');
  return notes;
}

/**
 * What the controller would do to a cluster's tags, made as it would make it and written nowhere:
 * the cluster's own session through the controller's identity rules, the same account check, the same
 * tag input, the same claim of the cluster name and memory (its AWSClusterLedger), then `reconcileTags`
 * with `dryRun: true`, which reads (discovery) and never writes. A user who may not read what that takes
 * gets the `Partial` plan.
 */
export async function planCluster(context: InspectContext, cluster: AWSCluster): Promise<ClusterPlanReport> {
  const report: ClusterPlanReport = { cluster: clusterKeyOf(cluster), outcome: 'Planned', notes: notesOf(cluster) };
  try {
    return await planAgainstAws(context, cluster, report);
  } catch (error) {
    if (!isForbidden(error)) throw error;
    return readablePlan(context, cluster, report, failureOf(error));
  }
}

async function planAgainstAws(
  context: InspectContext,
  cluster: AWSCluster,
  report: ClusterPlanReport,
): Promise<ClusterPlanReport> {
  let session: IdentitySession;
  try {
    session = await context.resolver.resolve({
      namespace: cluster.metadata.namespace ?? '',
      identityRef: cluster.spec.identityRef ?? CONTROLLER_IDENTITY,
      region: cluster.spec.region,
      cluster: clusterUser(cluster),
    });
  } catch (error) {
    if (isForbidden(error)) throw error;
    return { ...report, outcome: error instanceof IdentityError ? 'Refused' : 'Failed', failure: failureOf(error) };
  }
  Object.assign(report, { accountId: session.accountId, principalArn: session.principalArn, chain: session.chain });
  const chain = await Promise.all(
    session.chain.map(({ apiGroup, kind, name }) =>
      context.store.getIdentity(kind as IdentityKind, name, cluster.metadata.namespace ?? '', apiGroup),
    ),
  );
  const refused = await accountRefusal(context, chain[0], session.accountId);
  if (refused) return { ...report, outcome: 'Refused', failure: refused };
  const input = clusterTagInput(
    cluster,
    chain.filter((identity) => identity !== undefined),
    await layerInputsFor(context, cluster),
    { now: context.now(), layerGracePeriodMs: context.layerGracePeriodMs },
  );
  report.regions = [...input.regions];
  try {
    const { claim, ledger } = await claimCheckFor(context, cluster, session);
    const result = await reconcileTags({
      ...input,
      session,
      claim,
      memory: ledger.memory,
      convertLegacy: ledger.convertLegacy,
      limiters: context.limiters,
      dryRun: true,
    });
    const { managedTags: _next, ...summary } = summarizePlan(result.plan);
    return {
      ...report,
      summary,
      changes: planChanges(result.plan),
      conflicts: result.plan.conflicts,
      problems: result.plan.problems.map(({ message }) => message),
      plan: result.plan,
      requests: result.requests,
    };
  } catch (error) {
    if (isForbidden(error)) throw error;
    const outcome = error instanceof ClusterNameClaimedError ? 'ClusterNameClaimed' : 'Failed';
    return { ...report, outcome, failure: failureOf(error) };
  }
}

/**
 * The plan a user who may not plan against AWS can have: the tags the layers it may read give (the
 * cluster's own, its identities' and the global policy's when readable), what the controller last
 * synced, and every check left out with why. Reads nothing of AWS.
 */
async function readablePlan(
  context: InspectContext,
  cluster: AWSCluster,
  report: ClusterPlanReport,
  why: Failure,
): Promise<ClusterPlanReport> {
  const unchecked: Unchecked[] = [];
  leaveOut(unchecked, "the tags on AWS (a plan made with the cluster's own credentials)", why);
  const { links, identities } = await readableChain(context, cluster, unchecked);
  const namespaceName = cluster.metadata.namespace ?? '';
  const all = await readable(
    'the global and selected tag layers (AWSTagPolicies)',
    () => context.tagPolicies(),
    unchecked,
  );
  const namespace = await readable(
    `the labels of namespace ${namespaceName} (what tag policies' namespaceSelectors match)`,
    () => context.store.getNamespace(namespaceName),
    unchecked,
  );
  const companion = await readable(
    "whether the cluster is a Cluster API Cluster's companion (its Cluster), so that CAPA's tags are read",
    () => context.companion(cluster),
    unchecked,
  );
  const layers = tagLayers({
    ...clusterLayerInputs(all ?? [], cluster, namespace?.labels ?? {}, companion ?? false),
    identities: identities.filter((identity) => identity !== undefined),
    cluster,
  });
  const effective = resolveEffectiveTags(layers);
  const tagging = cluster.status?.tagging;
  return {
    ...report,
    outcome: 'Partial',
    chain: links,
    tags: effective.tags,
    held: effective.held,
    conflicts: effective.conflicts,
    problems: effective.problems.map(({ message }) => message),
    ...(tagging?.lastSyncTime
      ? {
          lastSync: {
            ...(tagging.summary ? { summary: tagging.summary } : {}),
            ...(tagging.resourcesDrifted !== undefined ? { resourcesDrifted: tagging.resourcesDrifted } : {}),
            lastSyncTime: tagging.lastSyncTime,
          },
        }
      : {}),
    unchecked,
  };
}

/** The cluster's layer inputs as the controller picks them: from every policy, and its namespace's labels. */
async function layerInputsFor(context: InspectContext, cluster: AWSCluster): Promise<ClusterLayerInputs> {
  const [policies, namespace, companion] = await Promise.all([
    context.tagPolicies(),
    context.store.getNamespace(cluster.metadata.namespace ?? ''),
    context.companion(cluster),
  ]);
  return clusterLayerInputs(policies, cluster, namespace?.labels ?? {}, companion);
}

/**
 * Plans clusters a few at a time (each waits for its account's rate limiter), in the order given. Once
 * `signal` aborts (its asker went away), no further cluster is planned and the reports are incomplete.
 */
export async function planClusters(
  context: InspectContext,
  clusters: readonly AWSCluster[],
  { onProgress, signal }: { onProgress?: (done: number) => void; signal?: AbortSignal } = {},
): Promise<ClusterPlanReport[]> {
  const reports: ClusterPlanReport[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < clusters.length && !signal?.aborted) {
      const index = next++;
      reports[index] = await planCluster(context, clusters[index]!);
      onProgress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PLANS_AT_ONCE, clusters.length) }, worker));
  return reports;
}
