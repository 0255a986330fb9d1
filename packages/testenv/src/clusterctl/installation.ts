import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provision, testEnvCacheDir } from '../cache.js';
import { TestEnvError } from '../errors.js';
import { executable } from '../files.js';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The script that builds clusterctl and copies Cluster API's CRDs; CI and people run it once per machine. */
export const CLUSTERCTL_PROVISION_SCRIPT = join(PACKAGE_DIR, 'scripts', 'provision-clusterctl.sh');

export interface ClusterctlInstallation {
  /** Cluster API's release, from cluster-api.env. */
  version: string;
  clusterctl: string;
  /**
   * The CRDs of a management cluster where `clusterctl init` ran, from the same release: Cluster
   * API's core CRDs and clusterctl's inventory (`Provider`).
   */
  crds: string;
}

/** The pinned release, from cluster-api.env (the provisioning script reads the same file). */
export function clusterApiVersion(text = readFileSync(join(PACKAGE_DIR, 'cluster-api.env'), 'utf8')): string {
  const match = /^CLUSTER_API_VERSION=(\d+\.\d+\.\d+)$/m.exec(text);
  if (!match) throw new Error('cluster-api.env has no CLUSTER_API_VERSION=MAJOR.MINOR.PATCH line');
  return match[1]!;
}

/** Where provision-clusterctl.sh puts them: one folder per release in the cache dir. */
export function clusterctlInstallation(cacheDir = testEnvCacheDir()): ClusterctlInstallation {
  const version = clusterApiVersion();
  const dir = join(cacheDir, 'clusterctl', `v${version}`);
  return { version, clusterctl: join(dir, 'clusterctl'), crds: join(dir, 'crds') };
}

/** The binary and the CRDs exist; the script writes the CRDs' marker last: a binary without it is an interrupted run. */
const provisioned = (installation: ClusterctlInstallation): boolean =>
  executable(installation.clusterctl) && existsSync(join(installation.crds, '.complete'));

/** The installation, built first if it is not (`CLUSTERCTL_PROVISION_SCRIPT`: minutes of Go, once per machine). */
export function ensureClusterctl(cacheDir = testEnvCacheDir()): ClusterctlInstallation {
  if (!provisioned(clusterctlInstallation(cacheDir))) provision(CLUSTERCTL_PROVISION_SCRIPT, cacheDir);
  return requireClusterctl(cacheDir);
}

/** The installation, or an error naming what is missing and the command that provisions it. */
export function requireClusterctl(cacheDir = testEnvCacheDir()): ClusterctlInstallation {
  const installation = clusterctlInstallation(cacheDir);
  if (!provisioned(installation)) {
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `clusterctl ${installation.version} is not provisioned (${installation.clusterctl} and Cluster API's CRDs in ${installation.crds}); run ${CLUSTERCTL_PROVISION_SCRIPT}`,
      {
        hint: `it builds clusterctl with Go from sigs.k8s.io/cluster-api@v${installation.version} and copies that release's CRDs: a few minutes the first time, then never again`,
      },
    );
  }
  return installation;
}
