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

/** The metrics `readController` reads, and all it asks a controller for (`/metrics?name[]=`). */
const READ = {
  cpu: 'process_cpu_seconds_total',
  rss: 'process_resident_memory_bytes',
  heap: 'nodejs_heap_size_used_bytes',
  reconciles: 'controller_runtime_reconcile_total',
  queued: 'workqueue_depth',
  workers: 'controller_runtime_active_workers',
  tagWorkQueued: 'keymaster_tag_work_queued',
  tagWorkRunning: 'keymaster_tag_work_running',
  parked: 'keymaster_objects_parked',
};

/**
 * A controller's /metrics narrowed to what `readController` reads: sampled every second, the whole
 * text (every account's budget series: about 1 MB at 2,000 accounts) cost the controller a fifth of its
 * CPU, which a Prometheus scraping every 15 s does not.
 */
export const readingUrl = (metricsUrl: string): string =>
  `${metricsUrl}?${Object.values(READ)
    .map((name) => `name[]=${name}`)
    .join('&')}`;

export function readController(samples: readonly Sample[]): ControllerReading {
  return {
    cpuSeconds: sumOf(samples, READ.cpu),
    rssBytes: sumOf(samples, READ.rss),
    heapUsedBytes: sumOf(samples, READ.heap),
    reconciles: byLabel(samples, READ.reconciles, 'result', { controller: 'awscluster' }),
    pending:
      sumOf(samples, READ.queued, { name: 'awscluster' }) +
      sumOf(samples, READ.workers, { controller: 'awscluster' }) +
      sumOf(samples, READ.tagWorkQueued) +
      sumOf(samples, READ.tagWorkRunning),
    parked: byLabel(samples, READ.parked, 'kind'),
  };
}
