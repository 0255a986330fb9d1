/**
 * `pnpm bench`: the controller benchmark of docs/benchmarks.md. Three kinds of process: this driver
 * (creates the objects, watches, polls, reports), the emulators, and `keymaster run` (one process, or
 * --shards N of them), so that the CPU and memory read from the controller's /metrics are its own.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { RUN_FLAGS } from '@keymaster/reconciler';
import { deployedMemory, installCapa } from '@keymaster/testenv';
import type { AWSClusterRoleIdentity, AWSTagPolicy } from '@keymaster/api';
import { benchScenario, RESOURCES_PER_CLUSTER } from '../bench-scenario.js';
import { DEFAULT_BUDGETS, scopeOf, type Budget, type Budgets } from './arithmetic.js';
import { baselineArgs, resolveCommit, runBaseline } from './baseline.js';
import { EmulatorApi } from './emulator-api.js';
import { createFleet, edit, watchReadiness } from './fleet.js';
import { measureKubeFloor } from './kube-floor.js';
import { coldStart, dayTwoEdit, restart, resync, stsDay, tenantFlood, type Bench } from './phases.js';
import { buildController, startEmulators } from './processes.js';
import { writeReport, type BenchResult } from './report.js';
import { Sampler } from './sampler.js';

const PHASES = ['cold', 'edits', 'resync', 'sts', 'flood'] as const;
/** The flood (a tenant at the per-namespace bounds with the largest objects) runs when asked for. */
const DEFAULT_PHASES = PHASES.filter((phase) => phase !== 'flood');
const KUBES = ['emulator', 'real'] as const;
/** Phases that edit Keymaster's own kinds (identities' resourceTags, AWSClusters): none of an adopted fleet. */
const OWN_KINDS_PHASES = ['sts', 'flood'];
const USAGE = `pnpm bench [--clusters N] [--identities N] [--adopted] [--shards N [--replicas R]] [--latency-ms MS] [--unlimited-budget] [--kube ${KUBES.join('|')}] [--phases ${PHASES.join(',')}] [--sts-hours H] [--sts-step SECONDS] [--baseline COMMIT]`;

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '1000' },
    identities: { type: 'string', default: '0' },
    adopted: { type: 'boolean', default: false },
    shards: { type: 'string', default: '0' },
    replicas: { type: 'string', default: '3' },
    'latency-ms': { type: 'string', default: '0' },
    'unlimited-budget': { type: 'boolean', default: false },
    kube: { type: 'string', default: 'emulator' },
    phases: { type: 'string' },
    'sts-hours': { type: 'string', default: '24' },
    'sts-step': { type: 'string', default: '900' },
    baseline: { type: 'string' },
  },
});

function whole(flag: string, text: string, least: number): number {
  const value = Number(text);
  if (Number.isInteger(value) && value >= least) return value;
  process.stderr.write(`--${flag}=${text}: not a whole number of at least ${least}\n${USAGE}\n`);
  process.exit(2);
}
const clusterCount = whole('clusters', values.clusters, 1);
const identityCount = whole('identities', values.identities, 0);
const shards = whole('shards', values.shards, 0);
const latencyMs = whole('latency-ms', values['latency-ms'], 0);
const stsHours = whole('sts-hours', values['sts-hours'], 1);
const stsStep = whole('sts-step', values['sts-step'], 60);
// Every hour whole, and each 1-hour session used at least twice: an eviction then shows as an AssumeRole.
if (3600 % stsStep !== 0 || stsStep > 1800) {
  process.stderr.write(`--sts-step=${stsStep}: not a divisor of 3600 of at most 1800 (seconds)\n${USAGE}\n`);
  process.exit(2);
}
const adopted = values.adopted;
const phases = new Set<string>(
  values.phases?.split(',') ?? DEFAULT_PHASES.filter((phase) => !adopted || !OWN_KINDS_PHASES.includes(phase)),
);
const kube = KUBES.find((name) => name === values.kube);
if (kube === undefined) {
  process.stderr.write(`--kube: unknown API server "${values.kube}"; one of: ${KUBES.join(', ')}\n${USAGE}\n`);
  process.exit(2);
}
for (const phase of phases)
  if (!(PHASES as readonly string[]).includes(phase)) {
    process.stderr.write(`--phases: unknown phase "${phase}"; phases: ${PHASES.join(', ')}\n${USAGE}\n`);
    process.exit(2);
  }
const ownKindsOnly = OWN_KINDS_PHASES.filter((phase) => phases.has(phase));
if (adopted && ownKindsOnly.length > 0) {
  process.stderr.write(
    `--phases: ${ownKindsOnly.join(', ')} edit Keymaster's own kinds, which an --adopted fleet has none of; leave them out\n${USAGE}\n`,
  );
  process.exit(2);
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
let baselineCommit: string | undefined;
if (values.baseline !== undefined)
  try {
    baselineCommit = resolveCommit(values.baseline);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
// The baseline first, then this commit: one machine, one set of conditions, minutes apart.
const baseline = baselineCommit && (await runBaseline(baselineCommit, baselineArgs(process.argv.slice(2))));
const replicas = shards ? whole('replicas', values.replicas, 1) : 1;
const { world, objects } = benchScenario(clusterCount, identityCount, adopted);
// The controller's bound per namespace, raised to the scenario's busiest namespace: at 10,000 clusters
// in 18 tenants, 556 each, the default would leave 1,000 of them parked and the fleet never Ready.
const clustersIn = new Map<string, number>();
for (const { kind, metadata } of objects)
  if (kind === 'AWSCluster')
    clustersIn.set(metadata.namespace ?? '', (clustersIn.get(metadata.namespace ?? '') ?? 0) + 1);
const perNamespace = Math.max(Number(RUN_FLAGS['max-clusters-per-namespace'].default), ...clustersIn.values());
// deploy/manager/deployment.yaml's flags; --shards replaces --leader-elect.
const flags = [
  ...(shards ? [`--shards=${shards}`] : ['--leader-elect']),
  `--max-clusters-per-namespace=${perNamespace}`,
  ...(adopted ? ['--adopt-cluster-api'] : []),
  ...(values['unlimited-budget']
    ? ['tagging-read', 'tagging-write', 'ec2-read', 'ec2-write'].map((family) => `--aws-${family}-rate=unlimited`)
    : []),
];
// Each replica has its own budget per account and region: together they allow `replicas` times as much.
const times = ({ ratePerSecond, burst }: Budget) => ({
  ratePerSecond: ratePerSecond * replicas,
  burst: burst * replicas,
});
const budget = values['unlimited-budget']
  ? undefined
  : (Object.fromEntries(
      Object.entries(DEFAULT_BUDGETS).map(([family, familyBudget]) => [family, times(familyBudget)]),
    ) as Budgets);

process.stdout.write('building the controller (tsc -b) ...\n');
buildController();
const dir = await mkdtemp(join(tmpdir(), 'keymaster-bench-'));
const logDir = join(ROOT, '.bench', 'logs');
await mkdir(logDir, { recursive: true });
// A lifted budget lifts the aws-emulator's quotas too: it would throttle what the controller no longer holds back.
await writeFile(join(dir, 'world.json'), JSON.stringify(budget ? world : { ...world, quotas: 'off' }));
const kubeconfig = join(dir, 'kubeconfig');
if (kube === 'real')
  process.stdout.write('starting kube-apiserver + etcd (scripts/provision-kube.sh builds them once) ...\n');
const emulators = await startEmulators(join(dir, 'world.json'), kubeconfig, kube);
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
const api = new EmulatorApi(emulators, kubeConfig);
if (latencyMs > 0) await api.addLatency(latencyMs);
if (adopted) {
  process.stdout.write("installing Cluster API's and CAPA's CRDs (provisioned once, with Go) ...\n");
  await installCapa(await readFile(kubeconfig, 'utf8'));
}

process.stdout.write(
  `creating ${objects.length} objects (${clusterCount} ${adopted ? "Clusters and CAPA's AWSClusters" : 'AWSClusters'}) ...\n`,
);
const createdAt = performance.now();
await createFleet(kubeConfig, objects);
const createSeconds = Number(((performance.now() - createdAt) / 1000).toFixed(1));
process.stdout.write(`the API server's time for the cold start's fewest writes (before the controller starts) ...\n`);
const kubeFloor = await measureKubeFloor(kubeConfig, clusterCount);
process.stdout.write(`the Kubernetes floor: ${kubeFloor.writes} writes in ${kubeFloor.seconds} s\n`);
const ready = await watchReadiness(kubeConfig);
const sampler = new Sampler();
const bench: Bench = {
  kubeConfig,
  kubeconfig,
  emulators,
  api,
  objects,
  clusterCount,
  budget,
  ready,
  sampler,
  logDir,
  kubeFloor,
};

const resources = world.accounts.flatMap((account) => account.resources ?? []);
const result: BenchResult = {
  date: new Date().toISOString(),
  commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model.trim() ?? 'unknown', node: process.version },
  scenario: {
    clusters: clusterCount,
    resourcesPerCluster: RESOURCES_PER_CLUSTER,
    accounts: new Set(resources.map(({ arn }) => scopeOf(arn).split('/')[0])).size,
    regions: new Set(resources.map(({ arn }) => scopeOf(arn).split('/')[1])).size,
    identities: objects.filter(({ kind }) => kind.endsWith('Identity')).length,
    chained: objects.filter(({ spec }) => spec?.['sourceIdentityRef'] !== undefined).length,
  },
  options: {
    shards,
    replicas,
    budget: budget ? "default (AWS's quotas: reads 15/s, writes 5/s, EC2 writes 10/s)" : 'lifted',
    latencyMs,
    kube,
    adopted,
  },
  createSeconds,
  cold: undefined as never,
  ...(baseline ? { baseline } : {}),
};

const cold = await coldStart(bench, flags, replicas);
result.cold = cold.result;
let controllers = cold.controllers;
process.stdout.write(`converged: ${JSON.stringify(cold.result)}\n`);

/** fetch's own message ("fetch failed") says nothing of why: its cause does (a reset connection, a refused one). */
const withCause = ({ message, cause }: Error): string =>
  cause instanceof Error ? `${message}: ${withCause(cause)}` : message;

/** A phase that fails is reported as such; the others still run. */
async function phase<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    const outcome = await run();
    process.stdout.write(`${name}: ${JSON.stringify(outcome)}\n`);
    return outcome;
  } catch (error) {
    const message = withCause(error as Error);
    process.stdout.write(`${name} FAILED: ${message}\n`);
    (result.failures ??= {})[name] = message;
    return undefined;
  }
}

if (phases.has('edits')) {
  const policy = objects.find(({ kind }) => kind === 'AWSTagPolicy')!;
  result.policyEdit = await phase('policy edit', () =>
    dayTwoEdit(
      bench,
      'global AWSTagPolicy edit',
      () =>
        edit<AWSTagPolicy>(kubeConfig, policy, (current) => {
          for (const tag of current.spec.resourceTags ?? []) if (tag.key === 'cost-center') tag.value = 'platform-2';
        }),
      ({ tags }) => tags['cost-center'] === 'platform-2',
    ),
  );
  const identities = objects.filter(
    ({ kind, metadata }) => kind.endsWith('Identity') && metadata.name.startsWith('tenant-'),
  );
  // CAPA's identities have no resourceTags to edit.
  if (!adopted)
    result.identityEdit = await phase('identity edit', () =>
      dayTwoEdit(
        bench,
        "every tenant identity's resourceTags edit",
        () =>
          Promise.all(
            identities.map((identity) =>
              edit<AWSClusterRoleIdentity>(kubeConfig, identity, (current) => {
                for (const tag of current.spec.resourceTags ?? []) if (tag.key === 'tenant') tag.value += '-v2';
              }),
            ),
          ),
        ({ tags }) => tags['tenant']?.endsWith('-v2') === true,
      ),
    );
}

if (phases.has('resync')) {
  // Long enough for the restarted controller's first pass to end before its first resync.
  const syncPeriod = Math.max(60, Math.ceil(1.2 * result.cold.convergeSeconds));
  const restarted = await resync(
    bench,
    controllers,
    flags.filter((flag) => flag !== '--leader-elect'),
    replicas,
    syncPeriod,
  );
  controllers = restarted.controllers;
  result.resync = restarted.result;
  process.stdout.write(`resync: ${JSON.stringify(result.resync)}\n`);
}
// Shifting time would expire the shards' Leases under the other replicas: one process only; and
// kube-apiserver's clock does not move with the emulators' (its tokens and Leases would disagree).
// The controller has the default --sync-period: a resync of every cluster would keep it from being idle.
if (phases.has('sts') && replicas === 1 && kube === 'emulator') {
  controllers = await restart(bench, controllers, [`--max-clusters-per-namespace=${perNamespace}`], 1, 'sts', true);
  result.sts = await phase('sts', () => stsDay(bench, controllers[0]!, stsHours, stsStep));
}

if (phases.has('flood')) {
  const { limitMiB } = await deployedMemory();
  // The controller's bounds: --max-clusters-per-namespace (the default, or the scenario's), --max-credentials-requests-per-namespace.
  result.flood = await phase('flood', () =>
    tenantFlood(bench, controllers, { clusters: perNamespace, requests: 100 }, limitMiB),
  );
}

sampler.stop();
await Promise.all(controllers.map((controller) => controller.stop()));
await ready.stop();
await emulators.stop();
await rm(dir, { recursive: true, force: true });
await writeReport(result);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
