import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from './controller-process.js';

const MAIN = join(REPO_ROOT, 'packages/reconciler/src/cli/main.ts');

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command as a user at a terminal would: only the environment given, no AWS credentials. */
export function runAsUser(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve) =>
    execFile(file, args, { cwd: REPO_ROOT, env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** `keymaster <args>` as `pnpm keymaster` runs it (tsx on the sources), in `env`. */
export const keymasterAsUser = (args: string[], env: NodeJS.ProcessEnv): Promise<Finished> =>
  runAsUser(process.execPath, ['--import', 'tsx', '--conditions=@keymaster/source', MAIN, ...args], env);

/** A folder for PATH with `kubectl` (the binary given) and the plugin `kubectl-keymaster`, as a user installs it. */
export async function pluginFolder(dir: string, kubectl: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin);
  await symlink(join(REPO_ROOT, 'packages/reconciler/bin/kubectl-keymaster.js'), join(bin, 'kubectl-keymaster'));
  await writeFile(join(bin, 'kubectl'), `#!/bin/sh\nexec ${kubectl} "$@"\n`, { mode: 0o755 });
  return bin;
}

/** One line saying what failed and one with the fix: no stack trace, exit 2. */
export function expectClearFailure({ code, stdout, stderr }: Finished, message: RegExp, hint: RegExp): void {
  expect(stderr, 'a stack trace').to.not.match(/^\s+at /m);
  const lines = stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
  expect(lines, stderr).to.have.length(2);
  expect(lines[0]).to.match(message);
  expect(lines[1]).to.match(hint);
  expect(stdout).to.equal('');
  expect(code, stderr).to.equal(2);
}
