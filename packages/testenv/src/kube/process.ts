import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, closeSync, constants, openSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestEnvError } from '../errors.js';

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Run by setpriv once it has armed the parent death signal, which it can only do after the fork: a
 * parent that died before that left its child to init, with no signal to come. The shell reads `$PPID`
 * at its start (POSIX): still this process, whose death will now kill the server; else the parent is
 * gone already, and the server is not started at all.
 */
const ORPHAN_GUARD = '[ "$PPID" = "$1" ] || exit 1; shift; exec "$@"';

/**
 * On Linux the servers run under `setpriv --pdeathsig KILL` (util-linux) and ORPHAN_GUARD, so that they
 * die whenever this process dies without stopping them (SIGKILL, a crashed test runner), even right
 * after it started them (docs/testenv.md, "No orphans").
 */
function commandLine(command: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux') return [command, args];
  if (!onPath('setpriv')) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_START', 'setpriv is not on PATH', {
      hint: 'install util-linux (apt-get install -y util-linux): it runs the servers so that they die with their parent',
    });
  }
  const guard = ['/bin/sh', '-c', ORPHAN_GUARD, 'keymaster-orphan-guard', String(process.pid)];
  return ['setpriv', ['--pdeathsig', 'KILL', '--', ...guard, command, ...args]];
}

/** Groups still running, killed if this Node process exits without stopping them (a failed test run). */
const running = new Set<number>();
process.once('exit', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A server process in its own process group, its output in a log file. */
export class ServerProcess {
  private readonly exit: Promise<number | string>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    this.exit = once(child, 'exit').then(([code, signal]) => {
      running.delete(child.pid!);
      return (code as number | null) ?? (signal as string);
    });
  }

  /** `env` is set over this process's environment. */
  static async start(
    name: string,
    command: string,
    args: string[],
    logFile: string,
    env: Record<string, string> = {},
  ): Promise<ServerProcess> {
    const [file, argv] = commandLine(command, args);
    const log = openSync(logFile, 'a');
    try {
      const child = spawn(file, argv, { detached: true, stdio: ['ignore', log, log], env: { ...process.env, ...env } });
      const [error] = (await Promise.race([once(child, 'spawn').then(() => []), once(child, 'error')])) as [Error?];
      if (error) {
        throw new TestEnvError('ERR_KEYMASTER_TESTENV_START', `cannot start ${name} (${command}): ${error.message}`, {
          hint: 'provision it again: packages/testenv/scripts/ holds the scripts that build or install the servers',
          cause: error,
        });
      }
      running.add(child.pid!);
      return new ServerProcess(name, child, logFile);
    } finally {
      closeSync(log);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves with the exit code (or signal) once the process has exited. */
  exited(): Promise<number | string> {
    return this.exit;
  }

  /** Its log so far ('' before it wrote any). */
  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** The end of its log, for error messages. */
  logTail(lines = 20): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Polls `ready` until it says yes; fails at once, with the log's tail, if the process exits first. */
  async waitReady(timeoutMs: number, ready: () => Promise<boolean> | boolean): Promise<void> {
    let exitCode: number | string | undefined;
    void this.exit.then((code) => (exitCode = code));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exitCode !== undefined) {
        throw new TestEnvError(
          'ERR_KEYMASTER_TESTENV_START',
          `${this.name} exited (${exitCode}) while starting; the end of its log:\n${this.logTail()}`,
          {
            hint: 'the log says why; a broken binary is rebuilt by deleting it and provisioning again (packages/testenv/scripts/)',
          },
        );
      }
      if (await Promise.resolve(ready()).catch(() => false)) return;
      if (Date.now() > deadline) {
        throw new TestEnvError(
          'ERR_KEYMASTER_TESTENV_START',
          `${this.name} was not ready after ${timeoutMs / 1000} s; the end of its log:\n${this.logTail()}`,
          { hint: 'a loaded machine may need a longer startTimeoutMs' },
        );
      }
      await sleep(100);
    }
  }

  /** waitReady, and the process stopped when it is not: a start that failed leaves nothing running. */
  async waitReadyOrStop(timeoutMs: number, ready: () => Promise<boolean> | boolean): Promise<void> {
    try {
      await this.waitReady(timeoutMs, ready);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** SIGTERM to the whole group; SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!running.has(this.pid)) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      await this.exit;
    } finally {
      clearTimeout(timer);
    }
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}
