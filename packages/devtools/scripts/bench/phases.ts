/**
 * The benchmark's phases, each measured from the outside: a cold start, two day-2 edits, a resync with
 * nothing changed, and 24 hours of STS sessions on a shifted clock.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubernetesObjectApi, PatchStrategy, type KubeConfig } from '@kubernetes/client-node';
import type { AWSCluster } from '@keymaster/api';
import { createObjects, largestCluster, largestRequest, type Manifest } from '@keymaster/testenv';
import { minimumStsCalls, type StsMinimum } from '../../src/demo/minimums.js';
import {
  batchedTagWrites,
  discoveryPages,
  leastTime,
  percent,
  sessionsNeeded,
  slowest,
  total,
  type Budgets,
  type LeastTime,
  type TaggedResource,
} from './arithmetic.js';
import { MINIMUM_KUBE_WRITES_PER_CLUSTER, MINIMUM_KUBE_WRITES_PER_EDIT, type KubeFloor } from './kube-floor.js';
import { AssumeRoleTally } from './assume-role-tally.js';
import { sum, tagWritesOf, type EmulatorApi } from './emulator-api.js';
import type { ReadyClusters } from './fleet.js';
import {
  cpuSecondsOf,
  shiftTime,
  startController,
  type ControllerProcess,
  type EmulatorsProcess,
} from './processes.js';
import { combined, type Sampler } from './sampler.js';

export interface Bench {
  kubeConfig: KubeConfig;
  kubeconfig: string;
  emulators: EmulatorsProcess;
  api: EmulatorApi;
  objects: readonly Manifest[];
  clusterCount: number;
  /** The tagging budgets of each account and region; undefined when lifted. */
  budget: Budgets | undefined;
  ready: ReadyClusters;
  sampler: Sampler;
  logDir: string;
  /** The API server's time for the cold start's fewest writes, measured before the controllers start. */
  kubeFloor: KubeFloor;
}

const MiB = 1024 * 1024;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const seconds = (fromMs: number, toMs = performance.now()) => round((toMs - fromMs) / 1000);

/** Polls `done` every half second, printing `status` every 2 s, until it holds (or fails after `timeoutMs`). */
async function until(
  done: () => Promise<boolean> | boolean,
  status: () => string,
  timeoutMs = Infinity,
): Promise<void> {
  const startedAt = performance.now();
  for (let tick = 0; !(await done()); tick++) {
    if (tick % 4 === 3) process.stdout.write(`${status()}\n`);
    if (performance.now() - startedAt > timeoutMs) throw new Error(`${status()}: gave up after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

/** Whether the controllers have nothing queued or running and AWS saw no call for `quietMs`; when AWS last saw one. */
class Quiet {
  #calls = -1;
  #changedAt = performance.now();
  constructor(
    private readonly bench: Bench,
    private readonly quietMs = 2000,
  ) {}

  get lastCallAt(): number {
    return this.#changedAt;
  }

  async check(): Promise<boolean> {
    this.bench.sampler.assertRunning();
    const { total: calls } = await this.bench.api.calls();
    if (calls !== this.#calls) {
      this.#calls = calls;
      this.#changedAt = performance.now();
    }
    const { pending } = combined(await this.bench.sampler.sample());
    return pending === 0 && performance.now() - this.#changedAt > this.quietMs;
  }
}

export interface ColdResult {
  startupSeconds: number;
  convergeSeconds: number;
  minimum: { getResources: number; tagWrites: number; busiestScope: string; busiestCalls: number };
  budgetSeconds: number | undefined;
  /** The larger of the budget time and the API server's time for the fewest writes (`kubeFloor`). */
  least: LeastTime;
  kubeFloor: KubeFloor;
  made: { getResources: number; tagWrites: number; byAction: Record<string, number> };
  cpuSeconds: number;
  cpuMsPerCluster: number;
  /** The other processes' CPU over the same time: the emulators', the driver's. */
  emulatorsCpuSeconds: number;
  driverCpuSeconds: number;
  peakRssMiB: number;
  peakHeapMiB: number;
  rssAtConvergenceMiB: number;
  heapAtConvergenceMiB: number;
  reconciles: number;
  reconcilesByResult: Record<string, number>;
  bouncePercent: number;
  sts: StsMinimum & { made: StsMinimum };
  kubeWritesPerCluster: number;
  kubeWrites: Record<string, number>;
  load: { mean: number; max: number };
}

function clusterKeys(objects: readonly Manifest[]) {
  return objects
    .filter(({ kind }) => kind === 'AWSCluster')
    .map(({ metadata }) => ({ namespace: metadata.namespace ?? '', name: metadata.name }));
}

export async function startControllers(
  bench: Bench,
  flags: readonly string[],
  replicas: number,
  name: string,
  timeShift = false,
): Promise<ControllerProcess[]> {
  return Promise.all(
    Array.from({ length: replicas }, (_, index) =>
      startController({
        kubeconfig: bench.kubeconfig,
        emulators: bench.emulators,
        flags,
        log: join(bench.logDir, `controller-${name}-${index}.log`),
        timeShift,
      }),
    ),
  );
}

/** From cold: the controllers start with every object in place; until every AWSCluster is Ready. */
export async function coldStart(
  bench: Bench,
  flags: readonly string[],
  replicas: number,
): Promise<{ controllers: ControllerProcess[]; result: ColdResult }> {
  const { api, sampler, clusterCount, ready } = bench;
  const before = await api.resources();
  await api.resetCalls();
  await api.resetKubeStats();
  const spawnedAt = performance.now();
  const controllers = await startControllers(bench, flags, replicas, 'cold');
  const startupSeconds = seconds(spawnedAt);
  sampler.watch(controllers);
  const start = combined(await sampler.sample());
  const others = { emulators: cpuSecondsOf(bench.emulators.child.pid), driver: process.cpuUsage() };
  const startedAt = performance.now();
  let calls = 0;
  await until(
    async () => {
      sampler.assertRunning();
      calls = (await api.calls()).total;
      return ready.count() >= clusterCount;
    },
    () => `cold start: ${ready.count()} / ${clusterCount} clusters Ready, ${calls} AWS calls, ${seconds(startedAt)} s`,
  );
  const convergeSeconds = seconds(startedAt);
  const readings = await sampler.sample();
  const end = combined(readings);
  const emulatorsCpuSeconds = round(cpuSecondsOf(bench.emulators.child.pid) - others.emulators);
  const driverCpu = process.cpuUsage(others.driver);
  const peaks = sampler.peaks();
  const summary = await api.calls();
  const after = await api.resources();
  const kubeWrites = await api.kubeWrites();

  const pages = discoveryPages(before);
  const { writes, byFamily } = batchedTagWrites(before, after);
  // Each API family spends a budget of its own, side by side: the slowest sets the pace.
  const bound = slowest(new Map([['taggingReads', pages], ...byFamily]), bench.budget);
  const reconcilesByResult = Object.fromEntries(
    Object.entries(end.reconciles).map(([result, count]) => [result, count - (start.reconciles[result] ?? 0)]),
  );
  const reconciles = sum(reconcilesByResult);
  const cpuSeconds = round(end.cpuSeconds - start.cpuSeconds);
  return {
    controllers,
    result: {
      startupSeconds,
      convergeSeconds,
      minimum: {
        getResources: total(pages),
        tagWrites: total(writes),
        busiestScope: bound.scope,
        busiestCalls: bound.calls,
      },
      budgetSeconds: bench.budget && round(bound.seconds),
      least: leastTime(bench.budget && bound.seconds, clusterCount * MINIMUM_KUBE_WRITES_PER_CLUSTER, bench.kubeFloor),
      kubeFloor: bench.kubeFloor,
      made: {
        getResources: summary.byAction['tag:GetResources'] ?? 0,
        tagWrites: tagWritesOf(summary.byAction),
        byAction: summary.byAction,
      },
      cpuSeconds,
      cpuMsPerCluster: round((cpuSeconds * 1000) / clusterCount, 2),
      emulatorsCpuSeconds,
      driverCpuSeconds: round((driverCpu.user + driverCpu.system) / 1e6),
      peakRssMiB: Math.round(peaks.rssBytes / MiB),
      peakHeapMiB: Math.round(peaks.heapUsedBytes / MiB),
      rssAtConvergenceMiB: Math.round(Math.max(...readings.map(({ rssBytes }) => rssBytes)) / MiB),
      heapAtConvergenceMiB: Math.round(Math.max(...readings.map(({ heapUsedBytes }) => heapUsedBytes)) / MiB),
      reconciles,
      reconcilesByResult,
      bouncePercent: percent(reconcilesByResult['requeue_after'] ?? 0, reconciles),
      sts: {
        ...minimumStsCalls(bench.objects, clusterKeys(bench.objects)),
        made: {
          assumeRole: summary.byAction['sts:AssumeRole'] ?? 0,
          getCallerIdentity: summary.byAction['sts:GetCallerIdentity'] ?? 0,
        },
      },
      kubeWritesPerCluster: round(sum(kubeWrites) / clusterCount, 2),
      kubeWrites,
      load: peaks.load,
    },
  };
}

export interface EditResult {
  /** Resources whose tags changed. */
  resources: number;
  /** Tag writes made, and the fewest: per account, region and identical change, 20 resources a call (EC2's: 1,000). */
  tagWrites: number;
  minimumTagWrites: number;
  /** GetResources made on the way (discovery, read-backs): the minimum needs none, the resources being known. */
  getResources: number;
  /** From the edit until the last AWS call that reached a resource (every resource then checked). */
  reachSeconds: number;
  budgetSeconds: number | undefined;
  /** The larger of the budget time and the API server's time for each cluster's fewest writes. */
  least: LeastTime;
  busiestScope: string;
  kubeWrites: Record<string, number>;
  /** The controllers' CPU from the edit until every resource was reached and the controllers quiet, per cluster. */
  cpuMsPerCluster: number;
  load: { mean: number; max: number };
}

/** A day-2 edit: from the write of `apply` until every resource satisfies `reached`. */
export async function dayTwoEdit(
  bench: Bench,
  name: string,
  apply: () => Promise<unknown>,
  reached: (resource: TaggedResource) => boolean,
): Promise<EditResult> {
  const { api, sampler } = bench;
  const settled = new Quiet(bench);
  await until(
    () => settled.check(),
    () => `${name}: waiting for the controllers to be idle`,
  );
  const before = await api.resources();
  await api.resetCalls();
  await api.resetKubeStats();
  const quiet = new Quiet(bench);
  const start = combined(await sampler.sample());
  const startedAt = performance.now();
  await apply();
  let after: TaggedResource[] = [];
  await until(
    async () => {
      if (!(await quiet.check())) return false;
      after = await api.resources();
      return after.every(reached);
    },
    () => `${name}: ${seconds(startedAt)} s, last AWS call at ${seconds(startedAt, quiet.lastCallAt)} s`,
  );
  const cpuSeconds = combined(await sampler.sample()).cpuSeconds - start.cpuSeconds;
  const summary = await api.calls();
  const { resources, writes, byFamily } = batchedTagWrites(before, after);
  const bound = slowest(byFamily, bench.budget);
  return {
    resources,
    tagWrites: tagWritesOf(summary.byAction),
    minimumTagWrites: total(writes),
    getResources: summary.byAction['tag:GetResources'] ?? 0,
    reachSeconds: seconds(startedAt, quiet.lastCallAt),
    budgetSeconds: bench.budget && round(bound.seconds),
    least: leastTime(bench.budget && bound.seconds, bench.clusterCount * MINIMUM_KUBE_WRITES_PER_EDIT, bench.kubeFloor),
    busiestScope: bound.scope,
    kubeWrites: await api.kubeWrites(),
    cpuMsPerCluster: round((cpuSeconds * 1000) / bench.clusterCount, 2),
    load: sampler.peaks().load,
  };
}

export interface ResyncResult {
  syncPeriodSeconds: number;
  /** Writes of the restart (a new process reconciling every cluster), for reference. */
  restart: { tagWrites: number; kubeWrites: Record<string, number> };
  reconciles: number;
  /** From the end of the first pass until the resync was done. */
  seconds: number;
  awsCalls: Record<string, number>;
  tagWrites: number;
  kubeWrites: Record<string, number>;
}

const reconciled = async (bench: Bench) => sum(combined(await bench.sampler.sample()).reconciles);

/** Replaces the controllers with new ones and waits until their first pass over every cluster is done. */
export async function restart(
  bench: Bench,
  old: readonly ControllerProcess[],
  flags: readonly string[],
  replicas: number,
  name: string,
  timeShift: boolean,
): Promise<ControllerProcess[]> {
  await Promise.all(old.map((controller) => controller.stop()));
  const controllers = await startControllers(bench, flags, replicas, name, timeShift);
  bench.sampler.watch(controllers);
  // Replicas hand shards over as they come up (within a lease duration): the first pass ends after that.
  const first = new Quiet(bench, replicas > 1 ? 20_000 : 2000);
  await until(
    async () => (await reconciled(bench)) >= bench.clusterCount && first.check(),
    () => `${name}: the restarted controllers' first pass`,
  );
  return controllers;
}

/**
 * Replaces the controllers with new ones on a short --sync-period, lets them finish their first pass,
 * then measures their first periodic resync: nothing changed, so nothing may be written.
 */
export async function resync(
  bench: Bench,
  old: readonly ControllerProcess[],
  flags: readonly string[],
  replicas: number,
  syncPeriodSeconds: number,
): Promise<{ controllers: ControllerProcess[]; result: ResyncResult }> {
  const { api } = bench;
  await api.resetCalls();
  await api.resetKubeStats();
  const controllers = await restart(
    bench,
    old,
    [...flags, `--sync-period=${syncPeriodSeconds}s`],
    replicas,
    'resync',
    false,
  );
  const restartWrites = { tagWrites: tagWritesOf((await api.calls()).byAction), kubeWrites: await api.kubeWrites() };
  const { clusterCount } = bench;
  await api.resetCalls();
  await api.resetKubeStats();
  const base = await reconciled(bench);
  const startedAt = performance.now();
  const quiet = new Quiet(bench);
  await until(
    async () => (await reconciled(bench)) >= base + clusterCount && quiet.check(),
    () => `resync: waiting for the periodic resync (--sync-period=${syncPeriodSeconds}s), ${seconds(startedAt)} s`,
  );
  const { byAction } = await api.calls();
  return {
    controllers,
    result: {
      syncPeriodSeconds,
      restart: restartWrites,
      reconciles: (await reconciled(bench)) - base,
      seconds: seconds(startedAt),
      awsCalls: byAction,
      tagWrites: tagWritesOf(byAction),
      kubeWrites: await api.kubeWrites(),
    },
  };
}

/** A step whose clusters (one per tenant) are not Ready by then is stuck (the controller's log says why). */
const STEP_TIMEOUT_MS = 300_000;
/** Edits of one STS step made at once. */
const STEP_EDITORS = 8;
export interface StsResult {
  hours: number;
  stepSeconds: number;
  /** AssumeRole per role ARN over the run; each role's sessions last `lifetimeSeconds`. */
  assumeRoleByRole: Record<string, number>;
  /** Every AssumeRole of the run (exact even when the per-role log is not complete). */
  assumeRoleTotal: number;
  lifetimeSeconds: number;
  needed: { least: number; most: number };
  /** The role identities some cluster's chain passes through (the hub's included). */
  roles: number;
  /** The fewest AssumeRoles over the run: `roles × ceil(hours × 3600 / lifetimeSeconds)`. */
  minimum: number;
  /** Whether every AssumeRole of the run was seen (the call log keeps the latest 1,000, read as they come). */
  complete: boolean;
  expiredToken: number;
  errors: Record<string, Record<string, number>>;
  /** Where the steps' wall time went: waiting for idle, editing, waiting for Ready. */
  wallSeconds: { idle: number; edits: number; ready: number };
}

/**
 * 24 hours of STS: the emulators' and the controller's clocks move on `stepSeconds` at a time, each
 * time the controller is idle; after each step one AWSCluster per tenant is edited (so every chain link is used) and the driver waits
 * until those are Ready. Counts AssumeRole per role and every error, ExpiredToken above all.
 */
export async function stsDay(
  bench: Bench,
  controller: ControllerProcess,
  hours: number,
  stepSeconds: number,
): Promise<StsResult> {
  const { api, ready, kubeConfig } = bench;
  const tenants = new Map<string, Manifest>();
  for (const object of bench.objects)
    if (object.kind === 'AWSCluster' && !tenants.has(object.metadata.namespace ?? ''))
      tenants.set(object.metadata.namespace ?? '', object);
  const clusters = [...tenants.values()];
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const wall = { idle: 0, edits: 0, ready: 0 };
  await api.resetCalls();
  const tally = new AssumeRoleTally(api);
  tally.follow();
  const steps = Math.round((hours * 3600) / stepSeconds);
  try {
    for (let step = 1; step <= steps; step++) {
      const hour = ((step * stepSeconds) / 3600).toFixed(1);
      const startedAt = performance.now();
      // A call in flight across a jump would carry a session that expired in the jump.
      const idle = new Quiet(bench, 1000);
      await until(
        () => idle.check(),
        () => `sts: waiting for the controller to be idle before step ${step}`,
      );
      await shiftTime([bench.emulators.child, controller.child], step * stepSeconds * 1000);
      const editsAt = performance.now();
      const generations = new Map<string, number>();
      // Several editors at once: with a role per tenant, thousands of edits a step. A merge patch is one
      // request, where a read and a replace are two.
      await Promise.all(
        Array.from({ length: STEP_EDITORS }, async (_, slice) => {
          for (const { apiVersion, kind, metadata } of clusters.filter((_, index) => index % STEP_EDITORS === slice)) {
            const written = (await client.patch(
              { apiVersion, kind, metadata, spec: { additionalTags: { 'bench-sts-step': String(step) } } },
              undefined,
              undefined,
              undefined,
              undefined,
              PatchStrategy.MergePatch,
            )) as unknown as AWSCluster;
            generations.set(`${metadata.namespace ?? ''}/${metadata.name}`, written.metadata.generation ?? 0);
          }
        }),
      );
      const readyAt = performance.now();
      await until(
        () => ready.allReady(generations),
        () => `sts: hour ${hour} of ${hours}: waiting for ${generations.size} clusters`,
        STEP_TIMEOUT_MS,
      );
      wall.idle += editsAt - startedAt;
      wall.edits += readyAt - editsAt;
      wall.ready += performance.now() - readyAt;
      process.stdout.write(
        `sts: hour ${hour} of ${hours} (step ${step} of ${steps}): idle ${seconds(startedAt, editsAt)} s, ` +
          `edits ${seconds(editsAt, readyAt)} s, Ready ${seconds(readyAt)} s; ${sum(tally.byRole)} AssumeRole\n`,
      );
    }
  } finally {
    await tally.stop();
  }
  const summary = await api.calls();
  const expiredToken = Object.values(summary.errors)
    .flatMap((codes) => Object.entries(codes))
    .filter(([code]) => code.startsWith('ExpiredToken'))
    .reduce((total, [, count]) => total + count, 0);
  const lifetimeSeconds = tally.lifetimeSeconds || 3600;
  const needed = sessionsNeeded(hours * 3600, lifetimeSeconds);
  const roles = minimumStsCalls(bench.objects, clusterKeys(bench.objects)).assumeRole;
  return {
    hours,
    stepSeconds,
    assumeRoleByRole: tally.byRole,
    assumeRoleTotal: summary.byAction['sts:AssumeRole'] ?? 0,
    lifetimeSeconds,
    needed,
    roles,
    minimum: roles * needed.least,
    complete: tally.complete,
    expiredToken,
    errors: summary.errors,
    wallSeconds: { idle: round(wall.idle / 1000), edits: round(wall.edits / 1000), ready: round(wall.ready / 1000) },
  };
}

export interface FloodResult {
  /** The namespace one hostile tenant filled. */
  namespace: string;
  created: { clusters: number; requests: number; mib: number };
  createSeconds: number;
  parked: Record<string, number>;
  /** The controller's peak RSS and heap over the flood, and what deploy/manager gives it. */
  peakRssMiB: number;
  peakHeapMiB: number;
  limitMiB: number;
  /** The fleet's clusters still Ready once the flood was seen. */
  fleetReady: number;
}

/** Objects created at once by the flooding tenant. */
const FLOOD_CREATORS = 4;

/**
 * One tenant at the per-namespace bounds with the largest objects the API server accepts, and past
 * them: the controller's peak memory against the Deployment's limit, the fleet still Ready.
 */
export async function tenantFlood(
  bench: Bench,
  controllers: readonly ControllerProcess[],
  bounds: { clusters: number; requests: number },
  limitMiB: number,
): Promise<FloodResult> {
  const namespace = 'tenant-flood';
  const past = { clusters: Math.ceil(bounds.clusters / 10), requests: Math.ceil(bounds.requests / 10) };
  const objects = [
    ...Array.from({ length: bounds.clusters + past.clusters }, (_, index) =>
      largestCluster(namespace, `flood-${index}`),
    ),
    ...Array.from({ length: bounds.requests + past.requests }, (_, index) =>
      largestRequest(namespace, `flood-${index}`, 'flood'),
    ),
  ] as unknown as Manifest[];
  await createObjects(bench.kubeConfig, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }]);
  bench.sampler.watch(controllers);
  const startedAt = performance.now();
  let made = 0;
  const bytes = objects.reduce((sum, object) => sum + JSON.stringify(object).length, 0);
  await Promise.all(
    Array.from({ length: FLOOD_CREATORS }, async (_, slice) => {
      for (const object of objects.filter((_, index) => index % FLOOD_CREATORS === slice)) {
        await createObjects(bench.kubeConfig, [object]);
        if (++made % 50 === 0)
          process.stdout.write(`flood: ${made} / ${objects.length} objects created, ${seconds(startedAt)} s\n`);
      }
    }),
  );
  const createSeconds = seconds(startedAt);
  let parked: Record<string, number> = {};
  await until(
    async () => {
      parked = {};
      for (const reading of await bench.sampler.sample())
        for (const [kind, count] of Object.entries(reading.parked)) parked[kind] = (parked[kind] ?? 0) + count;
      return parked['AWSCluster'] === past.clusters && parked['AWSCredentialsRequest'] === past.requests;
    },
    () =>
      `flood: parked ${JSON.stringify(parked)}, expecting ${past.clusters} AWSClusters and ${past.requests} requests`,
  );
  await until(
    () => bench.ready.count() >= bench.clusterCount,
    () => `flood: ${bench.ready.count()} / ${bench.clusterCount} of the fleet Ready`,
  );
  const peaks = bench.sampler.peaks();
  return {
    namespace,
    created: {
      clusters: bounds.clusters + past.clusters,
      requests: bounds.requests + past.requests,
      mib: round(bytes / MiB),
    },
    createSeconds,
    parked,
    peakRssMiB: round(peaks.rssBytes / MiB),
    peakHeapMiB: round(peaks.heapUsedBytes / MiB),
    limitMiB,
    fleetReady: bench.ready.count(),
  };
}
