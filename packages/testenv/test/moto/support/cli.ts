import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../src/moto/cli.ts', import.meta.url));

/** Runs `pnpm moto` (its source, through tsx) with `args`: its first stdout line, stderr and exit. */
export function startMotoCli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, ['--conditions=@keymaster/source', '--import', 'tsx', CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // A child that dies before its first line fails the test at once, with what it printed.
  const firstLine = Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
    exit.then((code) => Promise.reject(new Error(`exited with ${String(code)} before printing: ${stderr}`))),
  ]);
  firstLine.catch(() => undefined);
  return { child, firstLine, exit, stdout: () => stdout, stderr: () => stderr };
}
