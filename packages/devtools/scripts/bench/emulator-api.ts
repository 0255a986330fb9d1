/** The emulators' admin APIs, as the benchmark uses them: what AWS holds, the calls made, the kube writes. */
import type { CallSummary, ResourceView } from '@keymaster/aws-emulator';
import type { RequestCount } from '@keymaster/kube-emulator';
import type { BenchEmulators } from '../bench-emulators.js';

const KUBE_WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** The AWS actions that write tags. */
export const TAG_WRITES = ['tag:TagResources', 'tag:UntagResources', 'ec2:CreateTags', 'ec2:DeleteTags'];

async function call<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export class EmulatorApi {
  constructor(private readonly emulators: BenchEmulators) {}

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
  kubeWrites = async (): Promise<Record<string, number>> => {
    const { requests } = await call<{ requests: RequestCount[] }>(`${this.emulators.kubeUrl}/_emulator/stats`);
    const writes: Record<string, number> = {};
    for (const { verb, resource, count } of requests)
      if (KUBE_WRITES.has(verb)) writes[`${verb} ${resource}`] = (writes[`${verb} ${resource}`] ?? 0) + count;
    return writes;
  };

  resetKubeStats = async (): Promise<void> => {
    await fetch(`${this.emulators.kubeUrl}/_emulator/stats`, { method: 'DELETE' });
  };
}

/** Lease renewals are the controllers' heartbeat (leader election, shards), not work: told apart. */
export const isLeaseWrite = (request: string): boolean => request.endsWith(' leases.coordination.k8s.io');

export const sum = (counts: Readonly<Record<string, number>>): number =>
  Object.values(counts).reduce((total, count) => total + count, 0);

export const tagWritesOf = (byAction: Readonly<Record<string, number>>): number =>
  TAG_WRITES.reduce((total, action) => total + (byAction[action] ?? 0), 0);
