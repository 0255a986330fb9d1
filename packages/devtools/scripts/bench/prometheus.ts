/** Reading a controller's /metrics (Prometheus text format): the figures the benchmark needs. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value;
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include `where`. */
export function sumOf(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([k, v]) => sample.labels[k] === v))
    .reduce((sum, { value }) => sum + value, 0);
}

/** A metric's samples summed by one label. */
export function byLabel(
  samples: readonly Sample[],
  name: string,
  label: string,
  where: Record<string, string> = {},
): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const sample of samples)
    if (sample.name === name && Object.entries(where).every(([k, v]) => sample.labels[k] === v)) {
      const key = sample.labels[label] ?? '';
      sums[key] = (sums[key] ?? 0) + sample.value;
    }
  return sums;
}

/** What the benchmark reads from one controller process. */
export interface ControllerReading {
  cpuSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  reconciles: Record<string, number>;
  /** AWSClusters queued or being reconciled, plus tag work queued or running. */
  pending: number;
  /** Objects past their namespace's bound (`keymaster_objects_parked`), by kind. */
  parked: Record<string, number>;
}

export function readController(samples: readonly Sample[]): ControllerReading {
  return {
    cpuSeconds: sumOf(samples, 'process_cpu_seconds_total'),
    rssBytes: sumOf(samples, 'process_resident_memory_bytes'),
    heapUsedBytes: sumOf(samples, 'nodejs_heap_size_used_bytes'),
    reconciles: byLabel(samples, 'controller_runtime_reconcile_total', 'result', { controller: 'awscluster' }),
    pending:
      sumOf(samples, 'workqueue_depth', { name: 'awscluster' }) +
      sumOf(samples, 'controller_runtime_active_workers', { controller: 'awscluster' }) +
      sumOf(samples, 'keymaster_tag_work_queued') +
      sumOf(samples, 'keymaster_tag_work_running'),
    parked: byLabel(samples, 'keymaster_objects_parked', 'kind'),
  };
}
