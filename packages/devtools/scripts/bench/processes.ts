/**
 * The benchmark's three kinds of process: this one (the driver), the emulators in a child, and
 * `keymaster run` in one child per replica, built (`buildController`) and started with the flags and
 * NODE_OPTIONS of deploy/manager/deployment.yaml and the standard AWS environment, as deployed.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BenchEmulators, KubeBackend } from '../bench-emulators.js';
import { deployedMemory } from '@keymaster/testenv';
import { parseMetrics, readController, readingUrl, type ControllerReading } from './prometheus.js';

// Children do not outlive the driver, however it ends.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

const TSX = ['--import', 'tsx', '--conditions=@keymaster/source'];
const TIME_SHIFT = ['--import', fileURLToPath(new URL('./time-shift.ts', import.meta.url))];
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The controller as deployed: built JavaScript (`buildController`), its packages' `dist/` too. */
const KEYMASTER = fileURLToPath(new URL('../../../reconciler/dist/cli/main.js', import.meta.url));

/**
 * Builds the packages (`tsc -b`, incremental) so that the controller runs as it does in production,
 * not through tsx, whose loader and source maps cost CPU and memory the controller would not.
 */
export function buildController(): void {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-b'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export interface EmulatorsProcess extends BenchEmulators {
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startEmulators(world: string, kubeconfig: string, kube: KubeBackend): Promise<EmulatorsProcess> {
  const child = fork(fileURLToPath(new URL('../bench-emulators.ts', import.meta.url)), [world, kubeconfig, kube], {
    execArgv: [...TSX, ...TIME_SHIFT, ...profiling()],
  });
  children.add(child);
  const [ready] = (await once(child, 'message')) as [BenchEmulators];
  return {
    ...ready,
    child,
    stop: async () => {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

/** CPU seconds a process has used, from /proc (Linux; 0 elsewhere): for the emulators, which serve no /metrics. */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    // Fields 14 and 15 (utime, stime) after the parenthesised command name, in clock ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ControllerProcess {
  child: ChildProcess;
  metricsUrl: string;
  read(): Promise<ControllerReading>;
  /** SIGTERM, as Kubernetes stops a pod: the controller drains and exits. */
  stop(): Promise<void>;
}

export interface ControllerOptions {
  kubeconfig: string;
  emulators: BenchEmulators;
  /** Extra flags of `keymaster run` (--shards, --aws-tagging-rate, --sync-period). */
  flags: readonly string[];
  log: string;
  /** Follow the benchmark's time shifts (the STS phase). */
  timeShift?: boolean;
}

/** deploy/manager/deployment.yaml's NODE_OPTIONS: the heap kept within the container's limit. */
const DEPLOYED = await deployedMemory();

/** With KEYMASTER_BENCH_CPU_PROF=DIR, each controller and the emulators write a V8 CPU profile there when they stop. */
const profiling = () => {
  const dir = process.env['KEYMASTER_BENCH_CPU_PROF'];
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
};

export async function startController(options: ControllerOptions): Promise<ControllerProcess> {
  const [metricsPort, probePort] = [await freePort(), await freePort()];
  const log = createWriteStream(options.log);
  const child = fork(
    KEYMASTER,
    [
      'run',
      `--kubeconfig=${options.kubeconfig}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      ...options.flags,
    ],
    {
      // The STS phase's clock shift is TypeScript: that controller runs through tsx.
      execArgv: [...(options.timeShift ? [...TSX, ...TIME_SHIFT] : []), ...DEPLOYED.nodeOptions, ...profiling()],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        AWS_ENDPOINT_URL: options.emulators.awsUrl,
        AWS_ACCESS_KEY_ID: options.emulators.accessKeyId,
        AWS_SECRET_ACCESS_KEY: options.emulators.secretAccessKey,
        AWS_REGION: 'us-east-1',
      },
    },
  );
  children.add(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = once(child, 'exit');
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const read = async () => {
    const response = await fetch(readingUrl(metricsUrl));
    if (!response.ok) throw new Error(`${metricsUrl}: ${response.status} ${await response.text()}`);
    return readController(parseMetrics(await response.text()));
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`keymaster run exited with ${child.exitCode}: see ${options.log}`);
    // Until it listens, fetch fails (a TypeError); an answer other than 200 is an error of ours.
    const listening = await read().then(
      () => true,
      (error: unknown) => {
        if (error instanceof TypeError) return false;
        throw error;
      },
    );
    if (listening) break;
    await sleep(200);
  }
  return {
    child,
    metricsUrl,
    read,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      log.end();
    },
  };
}

/** Sends a time shift to processes started with time-shift.ts and waits until each has taken it. */
export async function shiftTime(children: readonly ChildProcess[], timeShiftMs: number): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      const taken = new Promise<void>((resolve) => {
        const listener = (message: { timeShiftedMs?: number } | null) => {
          if (message?.timeShiftedMs !== timeShiftMs) return;
          child.off('message', listener);
          resolve();
        };
        child.on('message', listener);
      });
      child.send({ timeShiftMs });
      await taken;
    }),
  );
}
