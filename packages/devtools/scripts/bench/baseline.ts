/**
 * `pnpm bench --baseline REF`: the benchmark of another commit, run first on the same machine with the
 * same options, so that the two are compared under one set of conditions. A machine's speed is not a
 * constant (the same commit measured 6.7 and 16.1 ms of controller CPU per cluster five days apart):
 * figures of different days compare nothing, figures of one run do.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './report.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PNPM = join(ROOT, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');

/** A baseline's result as its own benchmark wrote it: an older benchmark may lack newer figures. */
export type BaselineResult = Partial<BenchResult> & Pick<BenchResult, 'commit' | 'cold'>;

/** The arguments of this run to pass to the baseline's benchmark: all but `--baseline` and its value. */
export function baselineArgs(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--baseline') index++;
    else if (!arg.startsWith('--baseline=')) args.push(arg);
  }
  return args;
}

/** The commit `ref` names, short; an error that names the flag when it names none. */
export function resolveCommit(ref: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', '--verify', `${ref}^{commit}`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new Error(
      `--baseline=${ref}: names no commit of this clone; pass a commit, tag or branch (git log shows them)`,
    );
  }
}

/** Runs `command` in `cwd`, each line of its output prefixed, and fails with its exit code. */
async function run(command: string, args: readonly string[], cwd: string, prefix: string): Promise<void> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix}${line}\n`));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${prefix}${[command, ...args].join(' ')} exited with ${code}`);
}

/**
 * The baseline's checkout: a worktree of this clone under .bench/baseline/COMMIT (kept for the next
 * run), its dependencies installed from pnpm's store (offline first, as the lockfile pins them).
 */
async function checkout(commit: string, prefix: string): Promise<string> {
  const dir = join(ROOT, '.bench', 'baseline', commit);
  if (!existsSync(join(dir, '.git'))) {
    process.stdout.write(`${prefix}checking out into ${dir} ...\n`);
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, commit], { cwd: ROOT, stdio: 'ignore' });
  }
  const install = ['install', '--frozen-lockfile', '--config.confirmModulesPurge=false'];
  await run(process.execPath, [PNPM, ...install, '--offline'], dir, prefix).catch(() =>
    run(process.execPath, [PNPM, ...install], dir, prefix),
  );
  return dir;
}

/** The newest report the baseline's benchmark wrote under its .bench/. */
async function newestReport(dir: string): Promise<BaselineResult> {
  const reports = join(dir, '.bench');
  const files = (await readdir(reports)).filter((name) => name.startsWith('reconciler-') && name.endsWith('.json'));
  const dated = await Promise.all(
    files.map(async (name) => ({ name, mtimeMs: (await stat(join(reports, name))).mtimeMs })),
  );
  const newest = dated.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  if (newest === undefined) throw new Error(`the baseline's benchmark wrote no report under ${reports}`);
  return JSON.parse(await readFile(join(reports, newest.name), 'utf8')) as BaselineResult;
}

/** Checks out `commit`, runs its benchmark with `args`, and answers its result. */
export async function runBaseline(commit: string, args: readonly string[]): Promise<BaselineResult> {
  const prefix = `baseline ${commit}: `;
  const dir = await checkout(commit, prefix);
  // A report left by an earlier run must not pass for this one's.
  await rm(join(dir, '.bench'), { recursive: true, force: true });
  await run(process.execPath, [PNPM, 'bench', ...args], join(dir, 'packages', 'devtools'), prefix);
  return newestReport(dir);
}
