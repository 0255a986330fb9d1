import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { createControllerLogger, formatDuration, RUN_FLAGS, type RunningController } from '@keymaster/reconciler';
import {
  createObjects,
  installCapa,
  readManifests,
  startEmulators,
  type Emulators,
  type Manifest,
} from '@keymaster/testenv';
import { clusterRow, converged, isReady, isRefused, type ClusterRow } from './clusters.js';
import { startControllerOnEmulators } from './controller.js';
import { listRequests, requestSettled } from './credentials.js';
import { driftCorrected, makeDrift, renderDrift, type Drift } from './drift.js';
import { renderInsights } from './insights.js';
import { LiveView, type Output } from './live.js';
import { driftSetBack, listClusterEvents } from './set-back.js';
import { clusterIdentities, minimumStsCalls, minimumTagWrites } from './minimums.js';
import { awsCallCounts, renderSummary, type DemoSummary } from './summary.js';

export interface DemoOptions {
  /** The aws-emulator's world file. */
  world: string;
  /** The folder of manifests applied to the emulated cluster. */
  examples: string;
  /** Cluster API's and CAPA's CRDs installed first, and the controller run with --adopt-cluster-api. */
  clusterApi?: boolean;
  /** Where to write the kubeconfig (default: a temporary folder, removed at the end). */
  kubeconfig?: string;
  /** Stop once converged (or once `timeoutMs` has passed without converging). */
  once: boolean;
  timeoutMs: number;
  /** The controller's --sync-period (default: keymaster run's). */
  syncPeriod?: string;
  out: Output;
  /** Aborting stops the demo (SIGINT, SIGTERM). */
  signal: AbortSignal;
}

export interface DemoResult {
  converged: boolean;
  summary?: DemoSummary;
  /** The controller's log, kept unless --once converged. */
  log?: string;
}

const POLL_MS = 250;

async function listClusters(emulators: Emulators): Promise<{ items: AWSCluster[]; rows: ClusterRow[] }> {
  const { items } = (await emulators.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awsclusters' })) as { items: AWSCluster[] };
  const setBack = driftSetBack(items, await listClusterEvents(emulators));
  const rows = items
    .map((cluster) => clusterRow(cluster, setBack.get(`${cluster.metadata.namespace}/${cluster.metadata.name}`)))
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return { items, rows };
}

/**
 * What the dry run and the explanations depend on, in short: every cluster as the API server holds it
 * (a fix anywhere, in an identity, a policy or a namespace, ends in a status the controller writes)
 * and the tags on AWS (an edit made behind Keymaster's back shows in the dry run until set back).
 */
const insightInputs = (emulators: Emulators, clusters: readonly AWSCluster[]): string =>
  JSON.stringify([
    clusters.map(({ metadata }) => [metadata.namespace, metadata.name, metadata.resourceVersion]),
    emulators.aws.world.listResources().map(({ arn, tags }) => [arn, tags]),
  ]);

/**
 * `keymaster demo`: both emulators, the examples applied, the controller in this process, and a live
 * table of the clusters until they converge; then what it cost against the minimum.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-demo-'));
  const kubeconfig = options.kubeconfig ?? join(dir, 'kubeconfig');
  const logPath = join(dir, 'controller.log');
  const logStream = createWriteStream(logPath);
  let emulators: Emulators | undefined;
  let controller: RunningController | undefined;
  // The log outlives the demo (Ctrl-C, no convergence, a failure), except after a successful --once.
  let keepLog = true;
  try {
    emulators = await startEmulators({ world: options.world, kubeconfig, namespace: RUN_FLAGS.namespace.default });
    const manifests = await readManifests(options.examples);
    if (options.clusterApi) {
      options.out.write("Installing Cluster API's and CAPA's CRDs ...\n");
      await installCapa(await readFile(kubeconfig, 'utf8'));
    }
    const before = emulators.aws.world.listResources();
    await createObjects(emulators.kubeConfig, manifests);
    const started = performance.now();
    controller = await startControllerOnEmulators(
      emulators,
      kubeconfig,
      createControllerLogger('info', 'text', logStream),
      [
        ...(options.syncPeriod ? ['--sync-period', options.syncPeriod] : []),
        ...(options.clusterApi ? ['--adopt-cluster-api'] : []),
      ],
    );
    options.out.write(
      [
        'Keymaster demo',
        `  management cluster  ${emulators.kube.url} (kube-emulator): ${manifests.length} objects applied from ${relative(process.cwd(), options.examples) || '.'}`,
        `  AWS                 ${emulators.aws.url} (aws-emulator)`,
        `  explore             kubectl --kubeconfig ${kubeconfig} get awsclusters -A`,
        `  controller          metrics ${controller.metricsUrl ?? '-'}/metrics, log ${logPath}`,
        '',
        '',
      ].join('\n'),
    );
    const view = new LiveView(options.out);
    let summary: DemoSummary | undefined;
    // The dry run and the explanations of refused clusters, made again only when what they read changed.
    let insights: { inputs: string; lines: string[] } | undefined;
    // Interactive only: once converged, one managed tag edited on AWS, then seen put back.
    let drift: Drift | undefined;
    let driftTried = options.once;
    while (!options.signal.aborted) {
      const { items, rows } = await listClusters(emulators);
      const requests = await listRequests(emulators);
      const elapsedMs = performance.now() - started;
      const justConverged = !summary && converged(rows) && requests.every(requestSettled);
      if (justConverged) {
        // The clusters as the API server holds them, after the examples: an adopted cluster's AWSCluster
        // (its identity, its EKS name) exists only there.
        const objects = [...manifests, ...(items as unknown as Manifest[])];
        const identities = clusterIdentities(objects);
        summary = {
          elapsedMs,
          rows,
          requests,
          calls: awsCallCounts(emulators.aws.calls.summary().byAction),
          stsMinimum: minimumStsCalls(
            objects,
            rows.filter(isReady),
            requests.filter((request) => request.ready?.status === 'True'),
          ),
          tagChange: minimumTagWrites(before, emulators.aws.world.listResources(), (clusterName) =>
            identities.get(clusterName),
          ),
        };
      }
      view.update(rows, summary ? 'Converged.' : `Converging… ${(elapsedMs / 1000).toFixed(1)} s`);
      if (summary && !driftTried) {
        driftTried = true;
        drift = await makeDrift(emulators, items, performance.now());
      }
      if (drift && drift.correctedAt === undefined && driftCorrected(emulators, drift))
        drift.correctedAt = performance.now();
      if (summary) {
        // Recomputed on every refresh, so that a fix made after convergence shows at once.
        const refused = rows.filter(isRefused).map((row) => `${row.namespace}/${row.name}`);
        const inputs = insightInputs(emulators, items);
        if (insights?.inputs !== inputs) insights = { inputs, lines: await renderInsights(emulators, refused) };
        view.setFooter([
          ...renderSummary(summary, rows, requests),
          ...(drift ? renderDrift(drift, options.syncPeriod ?? RUN_FLAGS['sync-period'].default) : []),
          ...insights.lines,
          ...(options.once
            ? []
            : ['', 'The controller keeps running: change objects with kubectl and watch. Ctrl-C stops the demo.']),
        ]);
      }
      if (options.once && summary) {
        keepLog = false;
        return { converged: true, summary };
      }
      if (options.once && elapsedMs > options.timeoutMs) {
        options.out.write(
          [
            `Not converged within ${formatDuration(options.timeoutMs)}. Clusters neither Ready nor refused:`,
            ...rows
              .filter((row) => !isReady(row) && !isRefused(row))
              .map(
                (row) =>
                  `  ${row.namespace}/${row.name}: ${row.ready ? `${row.ready.reason}: ${row.ready.message}` : 'no status yet'}`,
              ),
            '',
          ].join('\n'),
        );
        return { converged: false, log: logPath };
      }
      await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
    return { converged: summary !== undefined, ...(summary ? { summary } : {}), log: logPath };
  } finally {
    await controller?.stop();
    await emulators?.stop();
    await new Promise((resolve) => logStream.end(resolve));
    // The kubeconfig names a server that is gone: only the log is worth keeping.
    await rm(keepLog ? join(dir, 'kubeconfig') : dir, { recursive: true, force: true });
  }
}
