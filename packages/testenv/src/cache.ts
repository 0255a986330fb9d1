import { homedir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { TestEnvError } from './errors.js';

/**
 * Where provisioned binaries live: `$XDG_CACHE_HOME/keymaster/testenv` (`~/.cache/...` by default),
 * so only the first run on a machine pays their download or build. Deleting it is always safe.
 */
export function testEnvCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'keymaster', 'testenv');
}

/**
 * Runs one of the provisioning scripts (scripts/provision-*.sh) into the cache dir (`cacheDir`, as
 * `testEnvCacheDir` gives it), its progress on stderr: what a test or the demo needs is provisioned on
 * first use, with no step of its own. The scripts lock, so a run beside CI's own waits for it.
 */
export function provision(script: string, cacheDir: string): void {
  const run = spawnSync('bash', [script], {
    stdio: ['ignore', process.stderr, process.stderr],
    // The scripts write under $XDG_CACHE_HOME/keymaster/testenv.
    env: { ...process.env, XDG_CACHE_HOME: dirname(dirname(cacheDir)) },
  });
  if (run.status !== 0)
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `${script} failed (${run.status === null ? `signal ${run.signal}` : `exit ${run.status}`})`,
      { hint: 'its output above says why (Go and the Go module proxy are needed once per machine)' },
    );
}
