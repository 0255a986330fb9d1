import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnvCacheDir } from '../cache.js';
import { TestEnvError } from '../errors.js';
import { executable } from '../files.js';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The script that builds the binaries; CI and people run it once per machine. */
export const PROVISION_SCRIPT = join(PACKAGE_DIR, 'scripts', 'provision-kube.sh');

/** The variable that picks the Kubernetes minor the real suites run on (`1.35`, or a whole version). */
export const KUBE_VERSION_ENV = 'KEYMASTER_KUBE_VERSION';

/** A supported Kubernetes release and the etcd it ships with. */
export interface KubeVersion {
  kube: string;
  etcd: string;
}

export interface KubeBinaries {
  kubeVersion: string;
  etcdVersion: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubectl: string;
  etcd: string;
}

/** The lines of kube-versions.txt, newest first (the provisioning script reads the same file). */
export function supportedVersions(text = readFileSync(join(PACKAGE_DIR, 'kube-versions.txt'), 'utf8')): KubeVersion[] {
  const versions = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [kube, etcd, ...rest] = line.split(/\s+/);
      if (!/^\d+\.\d+\.\d+$/.test(kube!) || !/^\d+\.\d+\.\d+$/.test(etcd ?? '') || rest.length > 0)
        throw new Error(`kube-versions.txt: "${line}" is not "KUBERNETES_VERSION ETCD_VERSION"`);
      return { kube: kube!, etcd: etcd! };
    });
  if (versions.length === 0) throw new Error('kube-versions.txt lists no version');
  return versions;
}

const minor = (version: string): string => version.split('.').slice(0, 2).join('.');

/**
 * The versions the real control plane runs at: the line of kube-versions.txt that
 * KEYMASTER_KUBE_VERSION names (a minor such as `1.35`, or a whole version), else the first (newest).
 */
export function pinnedVersions(env: NodeJS.ProcessEnv = process.env, supported = supportedVersions()): KubeVersion {
  const wanted = env[KUBE_VERSION_ENV];
  if (wanted === undefined || wanted === '') return supported[0]!;
  const found = supported.find(({ kube }) => kube === wanted || minor(kube) === wanted);
  if (!found) {
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_KUBE_VERSION',
      `${KUBE_VERSION_ENV}=${JSON.stringify(wanted)} is not a supported Kubernetes version: use one of ${supported.map(({ kube }) => minor(kube)).join(', ')}`,
      { hint: 'a new minor is a line of packages/testenv/kube-versions.txt, then a run of provision-kube.sh' },
    );
  }
  return found;
}

/** Where provision-kube.sh puts the binaries of `version`: one folder per name and version in the cache dir. */
export function kubeBinaries(cacheDir = testEnvCacheDir(), version = pinnedVersions()): KubeBinaries {
  const path = (name: string, at: string): string => join(cacheDir, name, `v${at}`, name);
  return {
    kubeVersion: version.kube,
    etcdVersion: version.etcd,
    kubeApiserver: path('kube-apiserver', version.kube),
    kubeControllerManager: path('kube-controller-manager', version.kube),
    kubectl: path('kubectl', version.kube),
    etcd: path('etcd', version.etcd),
  };
}

/** `path` relative to the working directory when it is below it, so that it can be pasted. */
function shortPath(path: string): string {
  const local = relative(process.cwd(), path);
  return local.startsWith('..') || isAbsolute(local) ? path : local;
}

/** The binaries of `version`, or an error naming what is missing and the command that builds it. */
export function requireKubeBinaries(cacheDir = testEnvCacheDir(), version = pinnedVersions()): KubeBinaries {
  const binaries = kubeBinaries(cacheDir, version);
  const missing = (
    [
      ['kube-apiserver', binaries.kubeVersion, binaries.kubeApiserver],
      ['kube-controller-manager', binaries.kubeVersion, binaries.kubeControllerManager],
      ['kubectl', binaries.kubeVersion, binaries.kubectl],
      ['etcd', binaries.etcdVersion, binaries.etcd],
    ] as const
  )
    .filter(([, , path]) => !executable(path))
    .map(([name, at, path]) => `${name} ${at} (${path})`);
  if (missing.length > 0) {
    // The command is in the message: test runners show the message, not the hint.
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `not built yet: ${missing.join(', ')}; run ${shortPath(PROVISION_SCRIPT)} ${minor(version.kube)}`,
      {
        hint: `it builds them with Go into ${cacheDir}: 10 to 15 minutes on 2 idle cores the first time, then never again`,
      },
    );
  }
  return binaries;
}
