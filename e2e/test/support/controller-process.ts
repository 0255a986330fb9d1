import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { API_WARNING_MESSAGE, noteApiWarning } from './api-warnings.js';
import { eventually } from './eventually.js';

/** The repository root: the controller runs from there, as `pnpm keymaster run` does. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A tree of Keymaster whose `keymaster` runs from source through its own tsx: this clone, or a release's. */
export interface KeymasterTree {
  /** Its root, where its node_modules (tsx among them) are. */
  dir: string;
  /** Its CLI's entry point, relative to `dir`. */
  main: string;
}

export const THIS_TREE: KeymasterTree = { dir: REPO_ROOT, main: 'packages/reconciler/src/cli/main.ts' };

export interface ControllerProcessOptions {
  kubeconfig: string;
  /** The aws-emulator's URL, given to the controller as AWS_ENDPOINT_URL. */
  awsUrl: string;
  /** The controller's own AWS keys (AWSClusterControllerIdentity "default" acts with them). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** `--sync-period` (Go duration). */
  syncPeriod?: string;
  /** More flags, after the defaults (later flags win). */
  args?: string[];
  /** Modules node loads before the controller (`--import`), e.g. follow-aws-emulator-clock.ts. */
  preload?: string[];
  /** Options of node itself, e.g. the Deployment's `--max-old-space-size=384`. */
  nodeOptions?: string[];
  /** The tree whose `keymaster run` this is (default: this clone). */
  tree?: KeymasterTree;
}

/** One line the controller logged (it logs JSON, one object per line, on stderr). */
export type LogLine = Record<string, unknown> & { level: string; message: string };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The real `keymaster run` process. It is started as `node --import tsx main.ts` rather than through
 * tsx's CLI, which would run it in a child process of its own: signals (SIGTERM, SIGKILL) must reach
 * the controller itself.
 */
export class ControllerProcess {
  /** Every line written to stdout or stderr, as written. */
  readonly output: string[] = [];
  /** The lines that are JSON log records. */
  readonly logs: LogLine[] = [];
  readonly exited: Promise<Exit>;
  metricsUrl = '';
  probesUrl = '';
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.exited = once(child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    }));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => this.#read(line));
    }
  }

  static async start(options: ControllerProcessOptions): Promise<ControllerProcess> {
    const tree = options.tree ?? THIS_TREE;
    const args = [
      ...(options.nodeOptions ?? []),
      '--conditions=@keymaster/source',
      '--import',
      'tsx',
      ...(options.preload ?? []).flatMap((module) => ['--import', module]),
      tree.main,
      'run',
      '--kubeconfig',
      options.kubeconfig,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      '--log-format',
      'json',
      '--sync-period',
      options.syncPeriod ?? '10m',
      ...(options.args ?? []),
    ];
    // From the tree's root: `--import tsx` resolves there, so each tree runs with its own tsx.
    const child = spawn(process.execPath, args, {
      cwd: tree.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Only what the controller should see: no AWS profile or config of the machine it runs on.
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: tmpdir(),
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_ENDPOINT_URL: options.awsUrl,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    });
    const controller = new ControllerProcess(child);
    try {
      await controller.#waitUntilReady();
    } catch (error) {
      child.kill('SIGKILL');
      await controller.exited;
      throw new Error(
        `keymaster run did not become ready: ${(error as Error).message}\n${controller.output.join('\n')}`,
        {
          cause: error,
        },
      );
    }
    return controller;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Sends the signal and waits for the process to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    if (this.running) this.#child.kill(signal);
    return this.exited;
  }

  /** The most memory the process has held (its peak resident set, VmHWM), in MiB. */
  peakRssMiB(): Promise<number> {
    return this.#memoryMiB('VmHWM');
  }

  async #memoryMiB(field: 'VmHWM'): Promise<number> {
    const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    if (kib === undefined) throw new Error(`no ${field} in /proc/${this.pid}/status`);
    return Number(kib) / 1024;
  }

  /** `/metrics`, in the Prometheus text format. */
  async metrics(): Promise<string> {
    const url = `${this.metricsUrl}/metrics`;
    // A kept-alive socket the server closes as it is reused fails with ECONNRESET, and no answer came:
    // asked again on a fresh one (a busy machine made the scale test meet it).
    const response = await fetch(url).catch(() => fetch(url));
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
    return response.text();
  }

  /** The sum of a metric's samples whose labels include `labels` (0 when there are none). */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    let sum = 0;
    for (const line of (await this.metrics()).split('\n')) {
      const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!sample || sample[1] !== name) continue;
      const present = new Set((sample[2] ?? '').match(/[\w]+="(?:[^"\\]|\\.)*"/g) ?? []);
      if (Object.entries(labels).every(([key, value]) => present.has(`${key}=${JSON.stringify(value)}`)))
        sum += Number(sample[3]);
    }
    return sum;
  }

  /** Log lines with this message. */
  logged(message: string): LogLine[] {
    return this.logs.filter((line) => line.message === message);
  }

  async #waitUntilReady(): Promise<void> {
    let exit: Exit | undefined;
    void this.exited.then((value) => (exit = value));
    const starting = await eventually(
      () => {
        if (exit) throw new Error(`exited early (${JSON.stringify(exit)})`);
        const line = this.logged('starting')[0];
        if (!line) throw new Error('no "starting" line logged yet');
        return line;
      },
      { timeoutMs: 60_000 },
    );
    this.metricsUrl = String(starting['metrics']);
    this.probesUrl = String(starting['probes']);
    await eventually(
      async () => {
        if (exit) throw new Error(`exited early (${JSON.stringify(exit)})`);
        const response = await fetch(`${this.probesUrl}/readyz`);
        if (response.status !== 200) throw new Error(`/readyz answered ${response.status}`);
      },
      { timeoutMs: 60_000 },
    );
  }

  #read(line: string): void {
    this.output.push(line);
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed && typeof parsed === 'object' && 'message' in parsed) {
        const logged = parsed as LogLine;
        this.logs.push(logged);
        if (logged.message === API_WARNING_MESSAGE) noteApiWarning(String(logged['warning']));
      }
    } catch {
      // Not JSON: kept in `output`, where the log-format test finds it.
    }
  }
}
