import { resolve } from 'node:path';
import { runDemo } from '../demo/demo.js';
import {
  commandHelp,
  FlagError,
  parseCommandFlags,
  parseDuration,
  parseRunFlags,
  type FlagSpecs,
} from '@keymaster/reconciler';
import { CLUSTER_API_DEMO_WORLD, CLUSTER_API_EXAMPLES_DIR, DEMO_WORLD, EXAMPLES_DIR } from '@keymaster/testenv';
import { EMULATOR_FLAGS } from './emulator-flags.js';

const DEMO_FLAGS = {
  once: { type: 'boolean', help: 'exit once converged: 0 when it converges, 1 when not within --timeout' },
  timeout: { type: 'string', default: '2m', help: 'how long --once waits for convergence (Go duration)' },
  'sync-period': {
    type: 'string',
    default: '15s',
    help: "how often the controller reconciles every cluster again, so that drift made by hand shows (keymaster run's flag)",
  },
  'cluster-api': {
    type: 'boolean',
    help: "a management cluster where Cluster API's AWS provider (CAPA) runs the tenants' clusters: Keymaster governs them with --adopt-cluster-api, no Keymaster object per cluster (deploy/examples/cluster-api/; provisions Cluster API's and CAPA's CRDs once, with Go)",
  },
  ...EMULATOR_FLAGS,
  examples: {
    type: 'string',
    help: 'the manifests to apply (default deploy/examples/, or deploy/examples/cluster-api/)',
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} satisfies FlagSpecs;

export interface DemoFlags {
  once: boolean;
  timeoutMs: number;
  syncPeriod: string;
  world: string;
  examples: string;
  kubeconfig: string | undefined;
  clusterApi: boolean;
  help: boolean;
}

export function parseDemoFlags(args: string[]): DemoFlags {
  const values = parseCommandFlags('demo', DEMO_FLAGS, args);
  const timeoutMs = parseDuration(values.timeout);
  if (timeoutMs === undefined || timeoutMs < 1000)
    throw new FlagError('timeout', values.timeout, 'is not a Go duration of at least 1s', 'Write it like 90s or 2m.');
  // Checked as `keymaster run` checks it, before anything starts.
  parseRunFlags(['--sync-period', values['sync-period']]);
  const clusterApi = values['cluster-api'] ?? false;
  return {
    once: values.once ?? false,
    timeoutMs,
    syncPeriod: values['sync-period'],
    world: resolve(values.world ?? (clusterApi ? CLUSTER_API_DEMO_WORLD : DEMO_WORLD)),
    examples: resolve(values.examples ?? (clusterApi ? CLUSTER_API_EXAMPLES_DIR : EXAMPLES_DIR)),
    kubeconfig: values.kubeconfig === undefined ? undefined : resolve(values.kubeconfig),
    clusterApi,
    help: values.help ?? false,
  };
}

export const demoHelp = (): string =>
  commandHelp(
    'keymaster demo [flags]',
    'Starts the kube-emulator and the aws-emulator with a multi-tenant world, applies deploy/examples/, runs the controller in this process and shows the clusters converge, then what it cost: STS calls and tag writes against the minimum, conflicts, refused clusters. Runs until Ctrl-C unless --once.',
    DEMO_FLAGS,
  );

const CTRL_C = 0x03;

/**
 * On a terminal, Ctrl-C (or q) is read as a key rather than sent as SIGINT to the whole foreground
 * process group: run through `pnpm demo`, pnpm would get the signal too and report ELIFECYCLE although
 * the demo stops cleanly and exits 0. Raw mode keeps output as it is (newlines included).
 */
function readStopKeys(stop: () => void): { release: () => void } {
  const input = process.stdin;
  if (!input.isTTY) return { release: () => undefined };
  input.setRawMode(true);
  const onKey = (chunk: Buffer) => {
    if (chunk.includes(CTRL_C) || chunk.includes('q')) stop();
  };
  input.on('data', onKey).resume();
  return {
    release: () => {
      input.off('data', onKey).setRawMode(false);
      input.pause();
    },
  };
}

/** `keymaster demo`: until SIGINT or SIGTERM, or with --once until convergence (exit 1 if it does not converge). */
export async function demo(args: string[]): Promise<void> {
  const flags = parseDemoFlags(args);
  if (flags.help) {
    console.log(demoHelp());
    return;
  }
  const interrupt = new AbortController();
  const stop = () => interrupt.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const keys = readStopKeys(stop);
  const { kubeconfig, help: _help, ...options } = flags;
  const result = await runDemo({
    ...options,
    ...(kubeconfig ? { kubeconfig } : {}),
    out: process.stdout,
    signal: interrupt.signal,
  }).finally(keys.release);
  if (result.log) process.stdout.write(`\nStopped. The controller's log is kept: ${result.log}\n`);
  // Clients keep sockets alive for a while: exit now rather than wait for them.
  process.exit(flags.once && !result.converged ? 1 : 0);
}
