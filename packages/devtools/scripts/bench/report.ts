/**
 * The benchmark's results: a JSON file of every figure under .bench/ and one row per table of
 * docs/benchmarks.md (cold start; day-2 edits; resync and STS), each table found by its marker.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ColdResult, EditResult, FloodResult, ResyncResult, StsResult } from './phases.js';
import type { KubeBackend } from '../bench-emulators.js';
import type { LeastTime } from './arithmetic.js';
import { isLeaseWrite, sum } from './emulator-api.js';
import type { BaselineResult } from './baseline.js';

const ROOT = new URL('../../../../', import.meta.url);
const DOC = fileURLToPath(new URL('docs/benchmarks.md', ROOT));

export interface BenchResult {
  date: string;
  commit: string;
  machine: { cores: number; cpu: string; node: string };
  scenario: {
    clusters: number;
    resourcesPerCluster: number;
    accounts: number;
    regions: number;
    identities: number;
    chained: number;
  };
  options: {
    shards: number;
    replicas: number;
    budget: string;
    latencyMs: number;
    kube: KubeBackend;
    /** The clusters are Cluster API's with CAPA's, adopted (`--adopted`); absent in rows before it. */
    adopted?: boolean;
  };
  createSeconds: number;
  cold: ColdResult;
  policyEdit?: EditResult;
  identityEdit?: EditResult;
  resync?: ResyncResult;
  sts?: StsResult;
  flood?: FloodResult;
  /** Phases that failed, and why. */
  failures?: Record<string, string>;
  /** `--baseline`: the other commit's result, measured first in the same run. */
  baseline?: BaselineResult;
}

const s = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(1)} s`);
const cells = (values: readonly (string | number)[]) => `| ${values.join(' | ')} |`;
const load = ({ mean, max }: { mean: number; max: number }) => `${mean} / ${max}`;
/** The least time, what sets it, and how many times it the phase took. */
const least = (seconds: number, bound: LeastTime | undefined) =>
  bound === undefined
    ? 'n/a'
    : `${s(bound.seconds)} ${bound.bound}${bound.seconds > 0 ? ` (${(seconds / bound.seconds).toFixed(2)} ×)` : ''}`;

/** The columns every table starts with: which run this is. */
function runCells({ date, commit, scenario, options }: BenchResult): (string | number)[] {
  return [
    date.slice(0, 16).replace('T', ' '),
    commit,
    `${scenario.clusters} × ${scenario.resourcesPerCluster}${options.adopted ? ' adopted from CAPA' : ''}`,
    `${scenario.accounts} × ${scenario.regions}`,
    options.shards ? `${options.shards} in ${options.replicas} processes` : '1 process',
    options.kube === 'real' ? 'kube-apiserver' : 'kube-emulator',
    options.budget,
    `${options.latencyMs} ms`,
  ];
}

export function coldRow(result: BenchResult): string {
  const { cold } = result;
  return cells([
    ...runCells(result),
    s(cold.convergeSeconds),
    `${s(cold.budgetSeconds)} (${cold.minimum.busiestCalls} calls)`,
    `${cold.made.byAction['tag:GetResources'] ?? 0} (${cold.minimum.getResources})`,
    `${cold.made.tagWrites} (${cold.minimum.tagWrites})`,
    `${cold.sts.made.assumeRole} (${cold.sts.assumeRole})`,
    `${cold.sts.made.getCallerIdentity} (${cold.sts.getCallerIdentity})`,
    `${cold.cpuSeconds} s (${cold.cpuMsPerCluster} ms)`,
    `${cold.emulatorsCpuSeconds} / ${cold.driverCpuSeconds} s`,
    `${cold.peakRssMiB} / ${cold.peakHeapMiB} MiB (${cold.rssAtConvergenceMiB} / ${cold.heapAtConvergenceMiB})`,
    `${cold.reconciles} (${cold.bouncePercent} %)`,
    cold.kubeWritesPerCluster,
    load(cold.load),
    least(cold.convergeSeconds, cold.least),
  ]);
}

const editCells = (edit: EditResult | undefined) =>
  edit
    ? [
        `${edit.tagWrites} (${edit.minimumTagWrites})`,
        edit.getResources,
        `${s(edit.reachSeconds)} (${s(edit.budgetSeconds)})`,
      ]
    : ['n/a', 'n/a', 'n/a'];

/** An edit's controller CPU per cluster; n/a for an edit not run. */
const cpuMs = (edit: EditResult | undefined) => (edit ? `${edit.cpuMsPerCluster} ms` : 'n/a');

export function editRow(result: BenchResult): string {
  const leastOf = (edit: EditResult | undefined) => (edit ? least(edit.reachSeconds, edit.least) : 'n/a');
  return cells([
    ...runCells(result),
    ...editCells(result.policyEdit),
    ...editCells(result.identityEdit),
    load(result.identityEdit?.load ?? result.policyEdit?.load ?? result.cold.load),
    leastOf(result.policyEdit),
    leastOf(result.identityEdit),
    `${cpuMs(result.policyEdit)} / ${cpuMs(result.identityEdit)}`,
  ]);
}

/** Kubernetes writes, the controllers' Lease renewals apart. */
function kubeWrites(writes: Record<string, number>): string {
  const leases = sum(Object.fromEntries(Object.entries(writes).filter(([request]) => isLeaseWrite(request))));
  return `${sum(writes) - leases}${leases ? ` (+${leases} Lease)` : ''}`;
}

/**
 * AssumeRole per role against the sessions needed (the total when the call log missed some calls),
 * then the total against the fewest: `roles × ceil(hours / session lifetime)`, and their ratio.
 */
function stsCell(sts: StsResult): string {
  const roles = Object.values(sts.assumeRoleByRole);
  const needed = `${sts.needed.least}-${sts.needed.most}`;
  const made = sts.complete
    ? `${roles.length} roles: ${Math.min(...roles)}-${Math.max(...roles)} each (${needed})`
    : `${sts.assumeRoleTotal} for ${sts.roles} roles (${needed} each; per role not logged)`;
  const ratio = (sts.assumeRoleTotal / sts.minimum).toFixed(2);
  return `${made}; ${sts.assumeRoleTotal} of min ${sts.minimum} = ${sts.roles} × ${sts.needed.least} (${ratio} ×)`;
}

export function steadyRow(result: BenchResult): string {
  const { resync, sts } = result;
  const otherErrors = sts
    ? Object.values(sts.errors)
        .flatMap((codes) => Object.entries(codes))
        .filter(([code]) => !code.startsWith('ExpiredToken'))
        .reduce((total, [, count]) => total + count, 0)
    : 0;
  return cells([
    ...runCells(result),
    resync ? resync.reconciles : 'n/a',
    resync ? resync.tagWrites : 'n/a',
    resync ? kubeWrites(resync.kubeWrites) : 'n/a',
    resync ? (resync.awsCalls['tag:GetResources'] ?? 0) : 'n/a',
    sts ? stsCell(sts) : 'n/a',
    sts ? sts.expiredToken : 'n/a',
    sts ? otherErrors : 'n/a',
  ]);
}

export function floodRow(result: BenchResult): string {
  const flood = result.flood!;
  return cells([
    ...runCells(result),
    `${flood.created.clusters} + ${flood.created.requests} (${flood.created.mib} MiB)`,
    s(flood.createSeconds),
    `${flood.parked['AWSCluster'] ?? 0} + ${flood.parked['AWSCredentialsRequest'] ?? 0}`,
    `${flood.peakRssMiB} / ${flood.peakHeapMiB} MiB`,
    `${flood.limitMiB} MiB`,
    `${flood.fleetReady} / ${result.scenario.clusters}`,
  ]);
}

/** `baseline / this (ratio ×)`, the ratio this over the baseline; n/a where either lacks the figure. */
function against(baseline: number | undefined, value: number | undefined, unit: string): string {
  if (baseline === undefined || value === undefined) return 'n/a';
  const ratio = baseline === 0 ? '' : ` (${(value / baseline).toFixed(2)} ×)`;
  return `${baseline} / ${value}${unit ? ` ${unit}` : ''}${ratio}`;
}

const awsCalls = (result: Pick<BenchResult, 'cold'>) => sum(result.cold.made.byAction);

/** This run against the baseline measured before it (`--baseline`): the figures both benchmarks report. */
export function baselineRow(result: BenchResult, baseline: BaselineResult): string {
  const reach = (edit: 'policyEdit' | 'identityEdit') =>
    against(baseline[edit]?.reachSeconds, result[edit]?.reachSeconds, 's');
  return cells([
    ...runCells(result).slice(0, 2),
    baseline.commit,
    ...runCells(result).slice(2, 6),
    against(baseline.cold.convergeSeconds, result.cold.convergeSeconds, 's'),
    against(baseline.cold.cpuMsPerCluster, result.cold.cpuMsPerCluster, 'ms'),
    against(awsCalls(baseline), awsCalls(result), ''),
    against(baseline.cold.kubeWritesPerCluster, result.cold.kubeWritesPerCluster, ''),
    against(baseline.cold.peakRssMiB, result.cold.peakRssMiB, 'MiB'),
    reach('policyEdit'),
    reach('identityEdit'),
    `${baseline.cold.load.mean} / ${result.cold.load.mean}`,
  ]);
}

/** Inserts `row` after the last line of the table that follows `marker` (an HTML comment) in `doc`. */
export function appendRow(doc: string, marker: string, row: string): string {
  const lines = doc.split('\n');
  const start = lines.indexOf(marker);
  if (start < 0) throw new Error(`docs/benchmarks.md has no ${marker}: restore the marker above its table`);
  let end = start + 1;
  while (end < lines.length && !lines[end]!.startsWith('|')) end++;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  lines.splice(end, 0, row);
  return lines.join('\n');
}

export const MARKERS = {
  cold: '<!-- bench:cold -->',
  edits: '<!-- bench:edits -->',
  steady: '<!-- bench:steady -->',
  flood: '<!-- bench:flood -->',
  baseline: '<!-- bench:baseline -->',
} as const;

/** Writes .bench/reconciler-<options>.json and appends the run's rows to docs/benchmarks.md. */
export async function writeReport(result: BenchResult): Promise<void> {
  await mkdir(fileURLToPath(new URL('.bench/', ROOT)), { recursive: true });
  const { clusters } = result.scenario;
  const { shards, replicas, budget, latencyMs, kube } = result.options;
  const name = `.bench/reconciler-${clusters}-clusters${result.options.adopted ? '-adopted' : ''}-${shards}-shards-${replicas}-replicas-${budget.split(' ')[0]}-budget-${latencyMs}ms-${kube}.json`;
  await writeFile(fileURLToPath(new URL(name, ROOT)), `${JSON.stringify(result, null, 2)}\n`);
  let doc = await readFile(DOC, 'utf8');
  doc = appendRow(doc, MARKERS.cold, coldRow(result));
  if (result.policyEdit || result.identityEdit) doc = appendRow(doc, MARKERS.edits, editRow(result));
  if (result.resync || result.sts) doc = appendRow(doc, MARKERS.steady, steadyRow(result));
  if (result.flood) doc = appendRow(doc, MARKERS.flood, floodRow(result));
  if (result.baseline) doc = appendRow(doc, MARKERS.baseline, baselineRow(result, result.baseline));
  await writeFile(DOC, doc);
}
