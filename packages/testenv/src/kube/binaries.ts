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

/** Where provision-kube.sh puts the binaries: one folder per version in the cache dir. */
export function kubeBinaries(cacheDir = testEnvCacheDir()): KubeBinaries {
  const versions = pinnedVersions();
  return {
    kubeVersion: versions.kube,
    etcdVersion: versions.etcd,
    kubeApiserver: join(cacheDir, 'kube-apiserver', `v${versions.kube}`, 'kube-apiserver'),
    etcd: join(cacheDir, 'etcd', `v${versions.etcd}`, 'etcd'),
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
  const missing = [
    executable(binaries.kubeApiserver)
      ? undefined
      : `kube-apiserver ${binaries.kubeVersion} (${binaries.kubeApiserver})`,
    executable(binaries.etcd) ? undefined : `etcd ${binaries.etcdVersion} (${binaries.etcd})`,
  ].filter((entry) => entry !== undefined);
  if (missing.length > 0) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED', `not built yet: ${missing.join(' and ')}`, {
      hint: `run ${shortPath(PROVISION_SCRIPT)} (it builds them with Go into ${cacheDir}; about 12 minutes on 2 cores the first time, then never again)`,
    });
  }
  return binaries;
}
