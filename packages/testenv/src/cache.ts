import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where provisioned binaries live: `$XDG_CACHE_HOME/keymaster/testenv` (`~/.cache/...` by default),
 * so only the first run on a machine pays their download or build. Deleting it is always safe.
 */
export function testEnvCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'keymaster', 'testenv');
}
