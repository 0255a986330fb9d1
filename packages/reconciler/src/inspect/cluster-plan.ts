import {
  KeymasterError,
  PAUSED_ANNOTATION,
  type AWSCluster,
  type IdentityKind,
  type IdentityLink,
  type TagConflict,
  type TagPlanChange,
} from '@keymaster/api';
import { CONTROLLER_IDENTITY, IdentityError, type IdentitySession } from '@keymaster/identity';
import {
  ClusterNameClaimedError,
  planChanges,
  reconcileTags,
  summarizePlan,
  type PlanSummary,
  type TagPlan,
} from '@keymaster/tagging';
import { clusterTagInput } from '../awscluster/tag-input.js';
import { clusterUser } from '../identity/deletions.js';
import { describeKubeError } from '../kube/errors.js';
import type { InspectContext } from './context.js';
import { claimCheckFor } from './name-claim.js';
import { clusterKeyOf } from './targets.js';

/** Clusters planned at once. */
const PLANS_AT_ONCE = 4;

/** Why there is no plan, as the error said it: code, message, fix. */
export interface Failure {
  code?: string;
  message: string;
  hint?: string;
}

/**
 * One cluster's dry run. `Planned`: the plan, with the principal it was made as. Otherwise why not:
 * `Refused` (the identity chain, as the controller would refuse it), `ClusterNameClaimed` (another
 * AWSCluster owns the name in that account: nothing of its resources is told) or `Failed` (discovery,
 * or anything else, failed).
 */
export interface ClusterPlanReport {
  /** namespace/name. */
  cluster: string;
  outcome: 'Planned' | 'Refused' | 'ClusterNameClaimed' | 'Failed';
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
}

export function failureOf(error: unknown): Failure {
  if (error instanceof KeymasterError)
    return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  const described = describeKubeError(error);
  return { message: described instanceof Error ? described.message : JSON.stringify(described) };
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
 * the cluster's own session through the controller's identity rules, the same tag input, the same
 * claim of the cluster name, then `reconcileTags` with `dryRun: true`, which reads (discovery) and
 * never writes.
 */
export async function planCluster(context: InspectContext, cluster: AWSCluster): Promise<ClusterPlanReport> {
  const report: ClusterPlanReport = { cluster: clusterKeyOf(cluster), outcome: 'Planned', notes: notesOf(cluster) };
  let session: IdentitySession;
  try {
    session = await context.resolver.resolve({
      namespace: cluster.metadata.namespace ?? '',
      identityRef: cluster.spec.identityRef ?? CONTROLLER_IDENTITY,
      region: cluster.spec.region,
      cluster: clusterUser(cluster),
    });
  } catch (error) {
    return { ...report, outcome: error instanceof IdentityError ? 'Refused' : 'Failed', failure: failureOf(error) };
  }
  Object.assign(report, { accountId: session.accountId, principalArn: session.principalArn, chain: session.chain });
  const chain = await Promise.all(
    session.chain.map(({ kind, name }) => context.store.getIdentity(kind as IdentityKind, name)),
  );
  const input = clusterTagInput(
    cluster,
    chain.filter((identity) => identity !== undefined),
    await context.policy(),
    { now: context.now(), layerGracePeriodMs: context.layerGracePeriodMs },
  );
  report.regions = [...input.regions];
  try {
    const result = await reconcileTags({
      ...input,
      session,
      claim: await claimCheckFor(context, cluster, session),
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
    const outcome = error instanceof ClusterNameClaimedError ? 'ClusterNameClaimed' : 'Failed';
    return { ...report, outcome, failure: failureOf(error) };
  }
}

/** Plans clusters a few at a time (each waits for its account's rate limiter), in the order given. */
export async function planClusters(
  context: InspectContext,
  clusters: readonly AWSCluster[],
  onProgress?: (done: number) => void,
): Promise<ClusterPlanReport[]> {
  const reports: ClusterPlanReport[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < clusters.length) {
      const index = next++;
      reports[index] = await planCluster(context, clusters[index]!);
      onProgress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PLANS_AT_ONCE, clusters.length) }, worker));
  return reports;
}
