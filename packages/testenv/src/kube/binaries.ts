import { accessSync, constants, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnvCacheDir } from '../cache.js';
import { TestEnvError } from '../errors.js';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The script that builds the binaries; CI and people run it once per machine. */
export const PROVISION_SCRIPT = join(PACKAGE_DIR, 'scripts', 'provision-kube.sh');

export interface KubeBinaries {
  kubeVersion: string;
  etcdVersion: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  etcd: string;
}

/** The pinned versions, from kube-versions.env (the provisioning script reads the same file). */
export function pinnedVersions(text = readFileSync(join(PACKAGE_DIR, 'kube-versions.env'), 'utf8')): {
  kube: string;
  etcd: string;
} {
  const value = (key: string): string => {
    const match = new RegExp(`^${key}=(\\S+)$`, 'm').exec(text);
    if (!match) throw new Error(`kube-versions.env has no ${key}= line`);
    return match[1]!;
  };
  return { kube: value('KUBE_VERSION'), etcd: value('ETCD_VERSION') };
}

/** Where provision-kube.sh puts the binaries: one folder per name and version in the cache dir. */
export function kubeBinaries(cacheDir = testEnvCacheDir()): KubeBinaries {
  const versions = pinnedVersions();
  const path = (name: string, version: string): string => join(cacheDir, name, `v${version}`, name);
  return {
    kubeVersion: versions.kube,
    etcdVersion: versions.etcd,
    kubeApiserver: path('kube-apiserver', versions.kube),
    kubeControllerManager: path('kube-controller-manager', versions.kube),
    etcd: path('etcd', versions.etcd),
  };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `path` relative to the working directory when it is below it, so that it can be pasted. */
function shortPath(path: string): string {
  const local = relative(process.cwd(), path);
  return local.startsWith('..') || isAbsolute(local) ? path : local;
}

/** The binaries, or an error naming what is missing and the command that builds it. */
export function requireKubeBinaries(cacheDir = testEnvCacheDir()): KubeBinaries {
  const binaries = kubeBinaries(cacheDir);
  const missing = (
    [
      ['kube-apiserver', binaries.kubeVersion, binaries.kubeApiserver],
      ['kube-controller-manager', binaries.kubeVersion, binaries.kubeControllerManager],
      ['etcd', binaries.etcdVersion, binaries.etcd],
    ] as const
  )
    .filter(([, , path]) => !executable(path))
    .map(([name, version, path]) => `${name} ${version} (${path})`);
  if (missing.length > 0) {
    // The command is in the message: test runners show the message, not the hint.
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `not built yet: ${missing.join(', ')}; run ${shortPath(PROVISION_SCRIPT)}`,
      {
        hint: `it builds them with Go into ${cacheDir}: 10 to 15 minutes on 2 idle cores the first time, then never again`,
      },
    );
  }
  return binaries;
}
