export { testEnvCacheDir } from './cache.js';
export { capaCrds, clusterApiCrds } from './capa/crds.js';
export { installCapa } from './capa/install.js';
export {
  CAPA_FLAVOURS,
  CAPA_PROVISION_SCRIPT,
  capaInstallation,
  capaTemplate,
  capaVersion,
  ensureCapa,
  requireCapa,
  type CapaFlavour,
  type CapaInstallation,
} from './capa/installation.js';
export {
  CAPA_MANAGER_PROVISION_SCRIPT,
  capaManagerArgs,
  ensureCapaManager,
  startCapaManager,
  type CapaManager,
  type CapaManagerOptions,
} from './capa/manager.js';
export { CAPA_TEMPLATE_VARIABLES, renderCapaCluster, type CapaClusterOptions } from './capa/render.js';
export {
  CLUSTERCTL_PROVISION_SCRIPT,
  clusterApiVersion,
  clusterctlInstallation,
  ensureClusterctl,
  requireClusterctl,
  type ClusterctlInstallation,
} from './clusterctl/installation.js';
export {
  controllerKeys,
  startEmulators,
  startRealBackend,
  type AccessKeys,
  type EmulatorOptions,
  type Emulators,
  type RealBackend,
} from './emulated/emulators.js';
export { createObjects, readManifests, type Manifest } from './emulated/manifests.js';
export {
  CLUSTER_API_DEMO_WORLD,
  CLUSTER_API_EXAMPLES_DIR,
  CRDS_DIR,
  DEMO_WORLD,
  EXAMPLES_DIR,
} from './emulated/paths.js';
export { deployedMemory } from './emulated/deployed-memory.js';
export { TestEnvError } from './errors.js';
export { largestCluster, largestRequest } from './hostile/largest-objects.js';
export { HELM_INSTALL_SCRIPT, requireHelm } from './helm/binary.js';
export {
  KUBE_VERSION_ENV,
  kubeBinaries,
  pinnedVersions,
  PROVISION_SCRIPT,
  requireKubeBinaries,
  supportedVersions,
  type KubeBinaries,
  type KubeVersion,
} from './kube/binaries.js';
export { aggregatedApiObjects, type AggregatedApi } from './kube/aggregated-api.js';
export { startRealKube, type RealKube, type RealKubeOptions } from './kube/real-kube.js';
export { writeServingCertificate } from './kube/serving-certificate.js';
export { ADMIN_USER, type TokenUser } from './kube/tokens.js';
export { MOTO_PROVISION_SCRIPT, motoInstallation, requireMoto, type MotoInstallation } from './moto/installation.js';
export { startMoto, type Moto, type StartMotoOptions } from './moto/server.js';
export {
  RELEASE_PROVISION_SCRIPT,
  RELEASES_FILE,
  recordedReleases,
  releaseTree,
  requireRelease,
  type ReleaseTree,
} from './release/installation.js';
