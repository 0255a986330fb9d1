import type { Explanation } from '../inspect/explain.js';
import { EXPLAIN_OUTPUTS } from '../inspect/output-format.js';
import { askController } from './ask-controller.js';
import { inspectHelp, parseInspectFlags, type InspectFlags } from './inspect-flags.js';

export const explainHelp = (): string =>
  inspectHelp(
    'keymaster explain (NAMESPACE/NAME | NAME -n NAMESPACE) [flags]',
    "Why a cluster is as it is: its conditions; its identity chain as a tree with each link's verdict (every link that refuses, at once); the account and principal; the tag layers and the claim that wins each key; its latest events; and the fix of each failure. Writes nothing. `kubectl keymaster why` is the same.",
    EXPLAIN_OUTPUTS,
  );

/** `keymaster explain`: one cluster, explained on stdout. */
export async function explain(args: string[]): Promise<void> {
  const flags = parseInspectFlags('explain', args, true, EXPLAIN_OUTPUTS);
  if (!flags) {
    console.log(explainHelp());
    return;
  }
  // parseInspectFlags gives explain one cluster.
  const { cluster } = flags.targets as { cluster: { namespace: string; name: string } };
  const explanation =
    (flags.local
      ? undefined
      : await askController(flags, async (kubeConfig) =>
          (await import('../inspect-api/client.js')).explanationFromController(kubeConfig, cluster),
        )) ?? (await explainHere(flags));
  const { renderExplanation } = await import('../inspect/explain-output.js');
  process.stdout.write(renderExplanation(explanation, flags.output));
}

/** The explanation made by this process, with the AWS environment's credentials (--local). */
async function explainHere(flags: InspectFlags): Promise<Explanation> {
  // Loaded past --help and the flags' checks: they bring the AWS SDK and client-node.
  const [{ explainCluster }, { findClusters }, { inspectContextOf }] = await Promise.all([
    import('../inspect/explain.js'),
    import('../inspect/targets.js'),
    import('./inspect-context.js'),
  ]);
  const context = await inspectContextOf(flags);
  const [cluster] = await findClusters(context, flags.targets);
  const explanation = await explainCluster(context, cluster!);
  context.resolver.clear();
  return explanation;
}
