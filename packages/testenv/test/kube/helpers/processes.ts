import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether a process (or, with a negative id, a process group) exists; a zombie is not alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  if (pid < 0) return true;
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false; // reaped meanwhile
  }
}

/** Retries `check` until it passes, for at most `timeoutMs`, and returns its value; then fails with its last error. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

/** The processes whose command line has `arg` as one of its arguments (from /proc, Linux). */
export function processesWithArgument(arg: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(arg);
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

/** The value of `--name=value` in a process's command line. */
export function argumentOf(pid: number, name: string): string | undefined {
  const prefix = `--${name}=`;
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .find((arg) => arg.startsWith(prefix))
    ?.slice(prefix.length);
}
