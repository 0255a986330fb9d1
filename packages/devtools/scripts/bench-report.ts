import { existsSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { StsMinimum, TagChange } from '../src/demo/minimums.js';

const ROOT = new URL('../../../', import.meta.url);
const RESULT = fileURLToPath(new URL('.bench/reconciler.json', ROOT));
const DOC = fileURLToPath(new URL('docs/benchmarks.md', ROOT));

export interface BenchResult {
  date: string;
  machine: { cores: number; cpu: string; node: string };
  scenario: { clusters: number; resourcesPerCluster: number; identities: number; chained: number };
  convergeSeconds: number;
  reconciles: number;
  reconcilesByResult: Record<string, number>;
  reconcilesPerSecond: number;
  sts: StsMinimum & { made: StsMinimum };
  tagWrites: TagChange & { made: number };
  awsCallsByAction: Record<string, number>;
  kubeWrites: { total: number; perCluster: number; byRequest: Record<string, number> };
  controllerPeakRssMiB: number;
  controllerCpuSeconds: number;
}

// docs/benchmarks.md ends with the results table (prettier leaves it as written): each run appends a row.
const TABLE = `<!-- prettier-ignore -->
| date | clusters × resources | identities (chained) | time to converge | reconciles/s | AssumeRole (min) | GetCallerIdentity (min) | tag writes (min) | kube API writes per cluster | controller peak RSS | cores | Node |
| --- | --- | --- | --: | --: | --: | --: | --: | --: | --: | --: | --- |
`;

const row = ({ date, scenario, sts, tagWrites, kubeWrites, machine, ...result }: BenchResult) =>
  `| ${[
    date.slice(0, 10),
    `${scenario.clusters} × ${scenario.resourcesPerCluster}`,
    `${scenario.identities} (${scenario.chained})`,
    `${result.convergeSeconds.toFixed(1)} s`,
    result.reconcilesPerSecond,
    `${sts.made.assumeRole} (${sts.assumeRole})`,
    `${sts.made.getCallerIdentity} (${sts.getCallerIdentity})`,
    `${tagWrites.made} (${tagWrites.minimumCalls})`,
    kubeWrites.perCluster,
    `${result.controllerPeakRssMiB} MiB`,
    machine.cores,
    machine.node,
  ].join(' | ')} |\n`;

/** Writes .bench/reconciler.json and appends the run's row to docs/benchmarks.md (made when missing). */
export async function writeReport(result: BenchResult): Promise<void> {
  await writeFile(RESULT, `${JSON.stringify(result, null, 2)}\n`);
  if (!existsSync(DOC)) await writeFile(DOC, `# Benchmarks\n\n${TABLE}`);
  await appendFile(DOC, row(result));
}
