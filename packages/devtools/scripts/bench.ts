/**
 * `pnpm bench` in packages/devtools: the controller in this process against the emulators in a
 * child process, with `--clusters N` AWSClusters (default 1,000) of 20 resources each and 20
 * identities. It measures the time until every cluster is Ready, reconciles per second, STS and tag
 * write calls against their minimum, kube API writes per cluster and this process's peak RSS and CPU
 * (bench-report.ts writes them down).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import type { CallSummary, ResourceView } from '@keymaster/aws-emulator';
import type { RequestCount } from '@keymaster/kube-emulator';
import { createControllerLogger, parseRunFlags, startController } from '@keymaster/reconciler';
import { createObjects } from '@keymaster/testenv';
import { clusterRow, isReady } from '../src/demo/clusters.js';
import { minimumStsCalls, minimumTagWrites } from '../src/demo/minimums.js';
import { awsCallCounts } from '../src/demo/summary.js';
import type { BenchEmulators } from './bench-emulators.js';
import { writeReport, type BenchResult } from './bench-report.js';
import { benchScenario, RESOURCES_PER_CLUSTER } from './bench-scenario.js';

const ROOT = new URL('../../../', import.meta.url);
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const { values } = parseArgs({ options: { clusters: { type: 'string', default: '1000' } } });
const clusterCount = Number(values.clusters);
if (!Number.isInteger(clusterCount) || clusterCount < 1) {
  process.stderr.write(`--clusters=${values.clusters}: not a whole number of at least 1\n`);
  process.exit(2);
}

const getJson = async <T>(url: string): Promise<T> => (await fetch(url)).json() as Promise<T>;

const dir = await mkdtemp(join(tmpdir(), 'keymaster-bench-'));
const { world, objects } = benchScenario(clusterCount);
await writeFile(join(dir, 'world.json'), JSON.stringify(world));
const kubeconfig = join(dir, 'kubeconfig');
const child = fork(
  fileURLToPath(new URL('./bench-emulators.ts', import.meta.url)),
  [join(dir, 'world.json'), kubeconfig],
  {
    execArgv: ['--import', 'tsx', '--conditions=@keymaster/source'],
  },
);
const [emulators] = (await once(child, 'message')) as [BenchEmulators];

process.stdout.write(`creating ${objects.length} objects (${clusterCount} AWSClusters) ...\n`);
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
await createObjects(kubeConfig, objects);
const before = await getJson<ResourceView[]>(`${emulators.awsUrl}/_emulator/resources`);
await fetch(`${emulators.kubeUrl}/_emulator/stats`, { method: 'DELETE' });

await mkdir(join(fileURLToPath(ROOT), '.bench'), { recursive: true });
const log = createWriteStream(join(fileURLToPath(ROOT), '.bench/reconciler-controller.log'));
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const cpuAtStart = cpuSeconds();
const started = performance.now();
const controller = await startController(
  parseRunFlags(['--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0']),
  {
    logger: createControllerLogger('warn', 'json', log),
    aws: {
      endpoint: emulators.awsUrl,
      credentials: () =>
        Promise.resolve({ accessKeyId: emulators.accessKeyId, secretAccessKey: emulators.secretAccessKey }),
    },
  },
);
// The controller's informer cache mirrors the API server: watching it costs the server nothing.
const readyCount = () => controller.manager.caches.clusters.list().map(clusterRow).filter(isReady).length;
for (let ready = readyCount(), tick = 0; ready < clusterCount; ready = readyCount(), tick++) {
  if (tick % 100 === 99)
    process.stdout.write(
      `${ready} of ${clusterCount} Ready after ${Math.round((performance.now() - started) / 1000)} s\n`,
    );
  await sleep(50);
}
const seconds = (performance.now() - started) / 1000;
const cpu = cpuSeconds() - cpuAtStart;

const reconcilesByResult: Record<string, number> = {};
for (const { labels, value } of (await controller.metrics.runtime.reconcileTotal.get()).values)
  if (labels.controller === 'awscluster') reconcilesByResult[String(labels.result)] = value;
const reconciles = Object.values(reconcilesByResult).reduce((sum, count) => sum + count, 0);
const { byAction } = await getJson<CallSummary>(`${emulators.awsUrl}/_emulator/calls`);
const calls = awsCallCounts(byAction);
const after = await getJson<ResourceView[]>(`${emulators.awsUrl}/_emulator/resources`);
const { requests } = await getJson<{ requests: RequestCount[] }>(`${emulators.kubeUrl}/_emulator/stats`);
await controller.stop();
log.end();
child.disconnect();
await rm(dir, { recursive: true, force: true });

const clusters = objects
  .filter(({ kind }) => kind === 'AWSCluster')
  .map(({ metadata }) => ({ namespace: metadata.namespace ?? '', name: metadata.name }));
const kubeWrites: Record<string, number> = {};
for (const { verb, resource, count } of requests)
  if (WRITES.has(verb)) kubeWrites[`${verb} ${resource}`] = (kubeWrites[`${verb} ${resource}`] ?? 0) + count;
const totalKubeWrites = Object.values(kubeWrites).reduce((sum, count) => sum + count, 0);
const result: BenchResult = {
  date: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model.trim() ?? 'unknown', node: process.version },
  scenario: {
    clusters: clusterCount,
    resourcesPerCluster: RESOURCES_PER_CLUSTER,
    identities: objects.filter(({ kind }) => kind.endsWith('Identity')).length,
    chained: objects.filter(({ spec }) => spec?.['sourceIdentityRef'] !== undefined).length,
  },
  convergeSeconds: Number(seconds.toFixed(3)),
  reconciles,
  reconcilesByResult,
  reconcilesPerSecond: Math.round(reconciles / seconds),
  sts: {
    ...minimumStsCalls(objects, clusters),
    made: { assumeRole: calls.assumeRole, getCallerIdentity: calls.getCallerIdentity },
  },
  tagWrites: { made: calls.tagWrites, ...minimumTagWrites(before, after) },
  awsCallsByAction: byAction,
  kubeWrites: {
    total: totalKubeWrites,
    perCluster: Number((totalKubeWrites / clusterCount).toFixed(2)),
    byRequest: kubeWrites,
  },
  // This process: the controller, plus the harness's copy of the scenario; the emulators run in a child.
  controllerPeakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  controllerCpuSeconds: Number(cpu.toFixed(1)),
};
await writeReport(result);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
