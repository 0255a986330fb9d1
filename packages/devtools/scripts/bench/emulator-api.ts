/** The emulators' admin APIs, as the benchmark uses them: what AWS holds, the calls made, the kube writes. */
import { request } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CallRecord, CallSummary, ResourceView } from '@keymaster/aws-emulator';
import type { RequestCount } from '@keymaster/kube-emulator';
import type { BenchEmulators } from '../bench-emulators.js';
import { parseMetrics } from './prometheus.js';

const KUBE_WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** The AWS actions that write tags. */
export const TAG_WRITES = ['tag:TagResources', 'tag:UntagResources', 'ec2:CreateTags', 'ec2:DeleteTags'];

async function call<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export class EmulatorApi {
  readonly #kube: KubeWriteCounter;

  constructor(
    private readonly emulators: BenchEmulators,
    kubeConfig: KubeConfig,
  ) {
    this.#kube = emulators.kube === 'real' ? fromApiServerMetrics(kubeConfig) : fromKubeEmulator(emulators.kubeUrl);
  }

  resources = (): Promise<ResourceView[]> => call(`${this.emulators.awsUrl}/_emulator/resources`);

  /**
   * The call counts, and the latest `recent` calls (at most 1,000): none by default, since the counts
   * are polled often and copying the calls would cost the emulator more than the calls did.
   */
  calls = (recent = 0): Promise<CallSummary> => call(`${this.emulators.awsUrl}/_emulator/calls?recent=${recent}`);

  resetCalls = async (): Promise<void> => {
    await call(`${this.emulators.awsUrl}/_emulator/calls`, { method: 'DELETE' });
  };

  /** Adds `latencyMs` to every AWS call. */
  addLatency = async (latencyMs: number): Promise<void> => {
    await call(`${this.emulators.awsUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: '*', latencyMs }),
    });
  };

  /** Kubernetes writes since the last reset, by `verb resource`. */
  kubeWrites = (): Promise<Record<string, number>> => this.#kube.writes();

  resetKubeStats = (): Promise<void> => this.#kube.reset();
}

/** Counts the writes an API server answered: the kube-emulator's own stats, or kube-apiserver's /metrics. */
interface KubeWriteCounter {
  writes(): Promise<Record<string, number>>;
  reset(): Promise<void>;
}

function fromKubeEmulator(kubeUrl: string): KubeWriteCounter {
  return {
    writes: async () => {
      const { requests } = await call<{ requests: RequestCount[] }>(`${kubeUrl}/_emulator/stats`);
      const writes: Record<string, number> = {};
      for (const { verb, resource, count } of requests)
        if (KUBE_WRITES.has(verb)) writes[`${verb} ${resource}`] = (writes[`${verb} ${resource}`] ?? 0) + count;
      return writes;
    },
    reset: async () => {
      await fetch(`${kubeUrl}/_emulator/stats`, { method: 'DELETE' });
    },
  };
}

/** kube-apiserver's verbs (`apiserver_request_total`) as the kube-emulator names them. */
const API_SERVER_VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  APPLY: 'patch',
  DELETE: 'delete',
  DELETECOLLECTION: 'deletecollection',
};

/** The writes in kube-apiserver's /metrics (`apiserver_request_total`), by `verb resource` as the kube-emulator counts them. */
export function apiServerWrites(metrics: string): Record<string, number> {
  const writes: Record<string, number> = {};
  for (const { name, labels, value } of parseMetrics(metrics)) {
    const verb = API_SERVER_VERBS[labels['verb'] ?? ''];
    if (name !== 'apiserver_request_total' || verb === undefined || labels['dry_run']) continue;
    const resource = labels['group'] ? `${labels['resource']}.${labels['group']}` : labels['resource'];
    writes[`${verb} ${resource}`] = (writes[`${verb} ${resource}`] ?? 0) + value;
  }
  return writes;
}

/** A real kube-apiserver's counters never reset: a reset remembers them, and writes are the difference. */
function fromApiServerMetrics(kubeConfig: KubeConfig): KubeWriteCounter {
  const read = async () => apiServerWrites(await metricsText(kubeConfig));
  let base: Record<string, number> = {};
  return {
    writes: async () => {
      const since: Record<string, number> = {};
      for (const [key, count] of Object.entries(await read()))
        if (count > (base[key] ?? 0)) since[key] = count - (base[key] ?? 0);
      return since;
    },
    reset: async () => {
      base = await read();
    },
  };
}

async function metricsText(kubeConfig: KubeConfig): Promise<string> {
  const url = new URL('/metrics', kubeConfig.getCurrentCluster()!.server);
  const options = { method: 'GET', host: url.hostname, port: url.port, path: url.pathname };
  await kubeConfig.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    request(options, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        response.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url.href}: ${response.statusCode}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** Lease renewals are the controllers' heartbeat (leader election, shards), not work: told apart. */
export const isLeaseWrite = (request: string): boolean => request.endsWith(' leases.coordination.k8s.io');

/**
 * The calls made after the first `seen` since the reset, oldest first, when `summary` (its latest
 * calls and the count of all) still holds every one of them; undefined when some fell out of its log.
 */
export function callsAfter(summary: CallSummary, seen: number): readonly CallRecord[] | undefined {
  const fresh = summary.total - seen;
  if (fresh < 0 || fresh > summary.recent.length) return undefined;
  return summary.recent.slice(summary.recent.length - fresh);
}

export const sum = (counts: Readonly<Record<string, number>>): number =>
  Object.values(counts).reduce((total, count) => total + count, 0);

export const tagWritesOf = (byAction: Readonly<Record<string, number>>): number =>
  TAG_WRITES.reduce((total, action) => total + (byAction[action] ?? 0), 0);
