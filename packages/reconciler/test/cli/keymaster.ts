import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SOURCES = join(ROOT, 'packages/reconciler/src/cli');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The production `keymaster <args>` (or `kubectl-keymaster`) on its sources through tsx, a child process. */
export function spawnKeymaster(args: string[], env: NodeJS.ProcessEnv, binary = 'main.ts'): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@keymaster/source', join(SOURCES, binary), ...args],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** Runs `keymaster <args>` to its end. */
export function keymaster(args: string[], env: NodeJS.ProcessEnv = {}, binary = 'main.ts'): Promise<Finished> {
  const child = spawnKeymaster(args, env, binary);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
