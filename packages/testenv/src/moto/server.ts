import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestEnvError } from '../errors.js';
import { freePorts } from '../kube/ports.js';
import { ServerProcess } from '../kube/process.js';
import { requireMoto } from './installation.js';

export interface StartMotoOptions {
  /** The port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where provision-moto.sh installed moto; default the user's cache dir. */
  cacheDir?: string;
  /** How long moto_server may take to answer (default 60000 ms: it imports every service at start). */
  startTimeoutMs?: number;
  /**
   * A file where moto records every request it answers, one JSON object a line with its headers and
   * body (moto's recorder, `MOTO_ENABLE_RECORDING`): who called what, for tests of several callers.
   */
  recordTo?: string;
}

export interface Moto {
  /** `http://HOST:PORT`: every AWS service moto emulates answers here (any credentials, any region). */
  readonly url: string;
  readonly version: string;
  /** moto_server's process id, the leader of its own process group. */
  readonly pid: number;
  /** Forgets every resource, account and credential moto holds (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** Resolves with the exit code (or signal) once moto_server has exited, by stop() or on its own. */
  exited(): Promise<number | string>;
  /** Stops moto_server (SIGTERM to its group, SIGKILL after 10 s) and removes its log. */
  stop(): Promise<void>;
}

const STEP_MS = 100;

/** moto answers its own API once every service is loaded. */
async function answers(url: string): Promise<boolean> {
  const response = await fetch(`${url}/moto-api/`, { signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.ok;
}

/**
 * Ready once moto_server has said it listens (so that another server on the port cannot pass for it:
 * a taken port makes moto_server exit instead) and its API answers.
 */
async function waitReady(server: ServerProcess, url: string, timeoutMs: number): Promise<void> {
  const port = new URL(url).port;
  // Werkzeug's banner; for 0.0.0.0 it names each address instead.
  const banner = new RegExp(`Running on http://\\S+:${port}\\b`);
  let exitCode: number | string | undefined;
  void server.exited().then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_START',
        `moto_server exited (${exitCode}) while starting; the end of its log:\n${server.logTail()}`,
        { hint: 'the log says why (a port in use?); a broken install is mended by deleting it and provisioning again' },
      );
    }
    const listening = banner.test(await readFile(server.logFile, 'utf8'));
    if (listening && (await answers(url).catch(() => false))) return;
    if (Date.now() > deadline) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_START',
        `moto_server did not answer ${url} after ${timeoutMs / 1000} s; the end of its log:\n${server.logTail()}`,
        { hint: 'a loaded machine may need a longer startTimeoutMs' },
      );
    }
    await sleep(STEP_MS);
  }
}

/**
 * Starts the provisioned moto in server mode and returns once it answers. Throws `TestEnvError`
 * `ERR_KEYMASTER_TESTENV_NOT_PROVISIONED` (with the command that installs it) when moto is missing.
 */
export async function startMoto(options: StartMotoOptions = {}): Promise<Moto> {
  const installation = requireMoto(options.cacheDir);
  const host = options.host ?? '127.0.0.1';
  const port = options.port || (await freePorts(1))[0]!;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-moto-'));
  let server: ServerProcess | undefined;
  const stop = async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    server = await ServerProcess.start(
      'moto_server',
      installation.server,
      ['--host', host, '--port', String(port)],
      join(dir, 'moto.log'),
      options.recordTo ? { MOTO_ENABLE_RECORDING: 'True', MOTO_RECORDER_FILEPATH: options.recordTo } : {},
    );
    await waitReady(server, url, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const running = server;
  return {
    url,
    version: installation.version,
    pid: running.pid,
    async reset() {
      const response = await fetch(`${url}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`POST ${url}/moto-api/reset answered ${response.status}`);
    },
    exited: () => running.exited(),
    stop,
  };
}
