import { EXPLAIN_OUTPUTS } from '../inspect/output-format.js';
import { inspectHelp, parseInspectFlags } from './inspect-flags.js';

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
  // Loaded past --help and the flags' checks: they bring the AWS SDK and client-node.
  const [{ explainCluster }, { renderExplanation }, { findClusters }, { inspectContextOf }] = await Promise.all([
    import('../inspect/explain.js'),
    import('../inspect/explain-output.js'),
    import('../inspect/targets.js'),
    import('./inspect-context.js'),
  ]);
  const context = await inspectContextOf(flags);
  const [cluster] = await findClusters(context, flags.targets);
  const explanation = await explainCluster(context, cluster!);
  context.resolver.clear();
  process.stdout.write(renderExplanation(explanation, flags.output));
}
