import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provision, testEnvCacheDir } from '../cache.js';
import { clusterApiVersion } from '../clusterctl/installation.js';
import { TestEnvError } from '../errors.js';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The script that copies CAPA's CRDs and templates from its Go module; CI and people run it once per machine. */
export const CAPA_PROVISION_SCRIPT = join(PACKAGE_DIR, 'scripts', 'provision-capa.sh');

/** The cluster templates of CAPA's module that tests render, by the flavour `clusterctl --flavor` names. */
export const CAPA_FLAVOURS = {
  plain: 'cluster-template.yaml',
  eks: 'cluster-template-eks.yaml',
  'multitenancy-clusterclass': 'cluster-template-multitenancy-clusterclass.yaml',
} as const;
export type CapaFlavour = keyof typeof CAPA_FLAVOURS;

export interface CapaInstallation {
  /** Cluster API Provider AWS's release, from capa.env. */
  version: string;
  /** Cluster API's release whose kubeadm providers' CRDs are here, from cluster-api.env. */
  clusterApiVersion: string;
  /** The module's config/crd (bases/, patches/, kustomization.yaml) and config/default/kustomization.yaml. */
  config: string;
  /** The module's templates/: `cluster-template[-FLAVOUR].yaml`. */
  templates: string;
  /** Cluster API's kubeadm bootstrap and control-plane providers' CRDs, which CAPA's templates use. */
  kubeadmCrds: string;
  /** Cluster API's core CRDs (Cluster, Machine, ClusterClass...) and clusterctl's inventory (Provider). */
  clusterApiCrds: string;
}

/** The pinned release, from capa.env (the provisioning script reads the same file). */
export function capaVersion(text = readFileSync(join(PACKAGE_DIR, 'capa.env'), 'utf8')): string {
  const match = /^CAPA_VERSION=(\d+\.\d+\.\d+)$/m.exec(text);
  if (!match) throw new Error('capa.env has no CAPA_VERSION=MAJOR.MINOR.PATCH line');
  return match[1]!;
}

/** Where provision-capa.sh puts them: one folder per pair of releases in the cache dir. */
export function capaInstallation(cacheDir = testEnvCacheDir()): CapaInstallation {
  const version = capaVersion();
  const capi = clusterApiVersion();
  const dir = join(cacheDir, 'capa', `v${version}-capi-v${capi}`);
  return {
    version,
    clusterApiVersion: capi,
    config: join(dir, 'config'),
    templates: join(dir, 'templates'),
    kubeadmCrds: join(dir, 'kubeadm-crds'),
    clusterApiCrds: join(dir, 'cluster-api-crds'),
  };
}

/** The provisioning script writes the marker last, beside the folders: without it, an interrupted run (or an older layout). */
const provisioned = (installation: CapaInstallation): boolean =>
  existsSync(join(installation.config, '..', '.complete')) && existsSync(installation.clusterApiCrds);

/**
 * The installation, provisioned first if it is not (`CAPA_PROVISION_SCRIPT`: a `go mod download`, seconds,
 * its progress on stderr), so that a test or the demo on a fresh machine needs no step of its own.
 */
export function ensureCapa(cacheDir = testEnvCacheDir()): CapaInstallation {
  if (!provisioned(capaInstallation(cacheDir))) provision(CAPA_PROVISION_SCRIPT, cacheDir);
  return requireCapa(cacheDir);
}

/** The installation, or an error naming what is missing and the command that provisions it. */
export function requireCapa(cacheDir = testEnvCacheDir()): CapaInstallation {
  const installation = capaInstallation(cacheDir);
  if (!provisioned(installation)) {
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `CAPA ${installation.version}'s CRDs and templates are not provisioned (${join(installation.config, '..')}); run ${CAPA_PROVISION_SCRIPT}`,
      {
        hint: `it copies them from the Go module sigs.k8s.io/cluster-api-provider-aws/v2@v${installation.version} (go mod download, no build): seconds, once per machine`,
      },
    );
  }
  return installation;
}

/** The template file of a flavour. */
export function capaTemplate(flavour: CapaFlavour, installation = requireCapa()): string {
  return join(installation.templates, CAPA_FLAVOURS[flavour]);
}
