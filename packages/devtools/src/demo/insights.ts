import { displayText } from '@keymaster/api';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { DEFAULT_LAYER_GRACE_PERIOD_MS } from '@keymaster/tagging';
import {
  chainTree,
  createInspectContext,
  explainCluster,
  findClusters,
  fixLines,
  planClusters,
  RUN_FLAGS,
  summaryText,
} from '@keymaster/reconciler';
import type { Emulators } from '@keymaster/testenv';

/**
 * What `keymaster plan -A` and `keymaster explain` say once the demo has converged: every cluster's
 * dry run in a line (nothing left to change), and why each refused cluster is refused, every link of
 * its chain at once, with the fixes. Read-only, as the commands are.
 */
export async function renderInsights(emulators: Emulators, refused: readonly string[]): Promise<string[]> {
  const { accessKeyId, secretAccessKey } = emulators.controller;
  const credentials: AwsCredentialIdentityProvider = () => Promise.resolve({ accessKeyId, secretAccessKey });
  const context = createInspectContext({
    kubeConfig: emulators.kubeConfig,
    controllerNamespace: RUN_FLAGS.namespace.default,
    stsRegion: RUN_FLAGS['sts-region'].default,
    layerGracePeriodMs: DEFAULT_LAYER_GRACE_PERIOD_MS,
    tenantLabel: RUN_FLAGS['tenant-label'].default,
    aws: { endpoint: emulators.aws.url, credentials },
  });
  try {
    const reports = await planClusters(context, await findClusters(context, { all: true }));
    const lines = [
      '',
      'Dry run now (`keymaster plan -A`, or `kubectl keymaster plan -A`; nothing written):',
      ...reports.map(
        ({ cluster, outcome, summary }) => `  ${cluster}: ${summary ? summaryText(summary) : `no plan (${outcome})`}`,
      ),
    ];
    for (const key of refused) {
      const [namespace = '', name = ''] = key.split('/');
      const [cluster] = await findClusters(context, { cluster: { namespace, name } });
      const explanation = await explainCluster(context, cluster!);
      lines.push('', `Why ${key} is refused (\`keymaster explain ${key}\`, or \`kubectl keymaster why ${key}\`):`);
      lines.push(...[...chainTree(explanation), ...fixLines(explanation)].map((line) => `  ${line}`));
    }
    return lines.map(displayText);
  } finally {
    context.resolver.clear();
  }
}
