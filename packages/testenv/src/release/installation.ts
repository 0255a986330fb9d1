import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnvCacheDir } from '../cache.js';
import { TestEnvError } from '../errors.js';

// src/release/ (or dist/release/ once built) is four levels below the repository root.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The releases of Keymaster, version -> commit: the source of truth (CI clones may carry no tags). */
export const RELEASES_FILE = join(ROOT, 'releases.json');
/** The script that extracts a recorded release and installs its dependencies; CI runs it once per machine. */
export const RELEASE_PROVISION_SCRIPT = join(ROOT, 'packages', 'testenv', 'scripts', 'provision-release.sh');
/** The file provision-release.sh writes last, holding the commit whose tree is there. */
const MARKER = '.keymaster-release';
/** A release's `keymaster` entry point, run from source through its own tsx. */
const MAIN = 'packages/reconciler/src/cli/main.ts';

/** Every recorded release, version -> full commit hash, newest first. */
export function recordedReleases(text = readFileSync(RELEASES_FILE, 'utf8')): [version: string, commit: string][] {
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${RELEASES_FILE} must be an object of version -> commit`);
  const releases = Object.entries(parsed as Record<string, unknown>).map(([version, commit]) => {
    if (!/^\d+\.\d+\.\d+$/.test(version) || typeof commit !== 'string' || !/^[0-9a-f]{40}$/.test(commit))
      throw new Error(
        `${RELEASES_FILE}: "${version}": ${JSON.stringify(commit)} is not a version and a full commit hash`,
      );
    return [version, commit] as [string, string];
  });
  const order = (version: string) => version.split('.').map(Number);
  return releases.sort(([a], [b]) => {
    const [x, y] = [order(a), order(b)];
    return y[0]! - x[0]! || y[1]! - x[1]! || y[2]! - x[2]!;
  });
}

export interface ReleaseTree {
  version: string;
  commit: string;
  /** The release's tree with its dependencies installed: `<cache dir>/releases/<commit>`. */
  dir: string;
  /** Its `deploy/`: CRDs, RBAC, the Deployment, the Helm chart (`deploy/helm/keymaster`). */
  deploy: string;
  /** Its `keymaster` CLI's source, relative to `dir`: `node --conditions=@keymaster/source --import tsx MAIN run`. */
  main: string;
}

/** Where provision-release.sh puts a recorded release: one tree per commit in the cache dir. */
export function releaseTree(version: string, cacheDir = testEnvCacheDir()): ReleaseTree {
  const commit = recordedReleases().find(([recorded]) => recorded === version)?.[1];
  if (!commit) throw new Error(`release ${version} is not recorded in ${RELEASES_FILE}`);
  const dir = join(cacheDir, 'releases', commit);
  return { version, commit, dir, deploy: join(dir, 'deploy'), main: MAIN };
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The release's tree, or an error saying it is missing and the command that provisions it. */
export function requireRelease(version: string, cacheDir = testEnvCacheDir()): ReleaseTree {
  const tree = releaseTree(version, cacheDir);
  if (readOrEmpty(join(tree.dir, MARKER)) !== tree.commit) {
    // The command is in the message: test runners show the message, not the hint.
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `release ${version} (${tree.commit.slice(0, 7)}) is not provisioned in ${tree.dir}; run bash ${RELEASE_PROVISION_SCRIPT} ${version}`,
      {
        hint: `it extracts the commit from this clone's history and installs its dependencies with its own pnpm: about a minute the first time, then never again`,
      },
    );
  }
  return tree;
}
