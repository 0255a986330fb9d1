import type { ClusterPlanReport } from '../inspect/cluster-plan.js';
import { PLAN_OUTPUTS } from '../inspect/output-format.js';
import { askController } from './ask-controller.js';
import { inspectHelp, parseInspectFlags, type InspectFlags } from './inspect-flags.js';

export const planHelp = (): string =>
  inspectHelp(
    'keymaster plan (NAMESPACE/NAME | NAME -n NAMESPACE | -n NAMESPACE | -A) [flags]',
    "The tag plan of the clusters named, as the controller would make it (each cluster's own credentials, through the controller's identity rules, the account's binding and the claim of its cluster name), written nowhere: no AWS write, no Kubernetes write. A user who may not read what that takes (a tenant) gets the tags the layers it may read give, what the controller last synced, and what was not checked and why (Partial). Exits 0 when every cluster was planned (Partial included), 1 when one could not be (refused, name owned by another cluster, discovery failed). -o table groups the resources with the same change, its lines at most 100 columns; -o wide has a row per key of each resource.",
    PLAN_OUTPUTS,
  );

/** `keymaster plan`: the dry run of one cluster, a namespace's or all, on stdout. */
export async function plan(args: string[]): Promise<void> {
  const flags = parseInspectFlags('plan', args, false, PLAN_OUTPUTS);
  if (!flags) {
    console.log(planHelp());
    return;
  }
  const reports =
    (flags.local
      ? undefined
      : await askController(flags, async (kubeConfig) =>
          (await import('../inspect-api/client.js')).plansFromController(kubeConfig, flags.targets),
        )) ?? (await planHere(flags));
  const { renderPlans } = await import('../inspect/plan-output.js');
  process.stdout.write(renderPlans(reports, flags.output));
  process.exitCode = reports.every(({ outcome }) => outcome === 'Planned' || outcome === 'Partial') ? 0 : 1;
}

/** The plans made by this process, with the AWS environment's credentials (--local). */
async function planHere(flags: InspectFlags): Promise<ClusterPlanReport[]> {
  // Loaded past --help and the flags' checks: they bring the AWS SDK and client-node.
  const [{ planClusters }, { findClusters }, { inspectContextOf }] = await Promise.all([
    import('../inspect/cluster-plan.js'),
    import('../inspect/targets.js'),
    import('./inspect-context.js'),
  ]);
  const context = await inspectContextOf(flags);
  const clusters = await findClusters(context, flags.targets);
  // Many clusters take a while (each account's reads are rate limited): say how far it is, on a terminal.
  const progress =
    process.stderr.isTTY && clusters.length > 1
      ? (done: number) => process.stderr.write(`\rplanning: ${done} of ${clusters.length} clusters`)
      : undefined;
  const reports = await planClusters(context, clusters, progress ? { onProgress: progress } : {});
  if (progress) process.stderr.write('\r\x1b[K');
  context.resolver.clear();
  return reports;
}
