import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { requireCapa, type CapaInstallation } from './installation.js';

/** What this file reads of a kustomization.yaml. */
interface Kustomization {
  namePrefix?: string;
  namespace?: string;
  commonLabels?: Record<string, string>;
  patchesStrategicMerge?: string[];
}

/** The label `clusterctl init` puts on every object of a provider's components (its inventory's). */
const CLUSTERCTL_LABEL = 'clusterctl.cluster.x-k8s.io';

function kustomization(folder: string): Kustomization {
  return loadYaml<Kustomization>(readFileSync(join(folder, 'kustomization.yaml'), 'utf8'));
}

/** The CRDs of a folder's YAML files, as client-node's models (which it serializes back as written). */
function crdsOf(folder: string): V1CustomResourceDefinition[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => loadAllYaml(readFileSync(join(folder, file), 'utf8')) as V1CustomResourceDefinition[]);
}

/**
 * CAPA's CRDs as `clusterctl init --infrastructure aws` installs them from CAPA's release: the
 * module's bases with what its kustomizations add (config/crd and config/default): the common labels
 * (the contract versions, the provider), the move-hierarchy label of the global identity kinds, and
 * the conversion webhook of the kinds with older versions, pointing at the release's Service
 * (`capa-system/capa-webhook-service`), which no test runs. The cert-manager CA-injection patches add
 * an annotation only cert-manager reads, and are left out.
 */
export function capaCrds(installation: CapaInstallation = requireCapa()): V1CustomResourceDefinition[] {
  const folder = join(installation.config, 'crd');
  const crdKustomization = kustomization(folder);
  const defaults = kustomization(join(installation.config, 'default'));
  const labels = { ...crdKustomization.commonLabels, ...defaults.commonLabels, [CLUSTERCTL_LABEL]: '' };
  const crds = crdsOf(join(folder, 'bases'));
  for (const crd of crds) crd.metadata!.labels = Object.assign({}, crd.metadata!.labels, labels);
  for (const file of crdKustomization.patchesStrategicMerge ?? []) {
    const patch = loadYaml<V1CustomResourceDefinition>(readFileSync(join(folder, file), 'utf8'));
    const crd = crds.find(({ metadata }) => metadata?.name === patch.metadata?.name);
    if (!crd) throw new Error(`${file} patches ${patch.metadata?.name}, which CAPA's CRD bases do not define`);
    Object.assign(crd.metadata!.labels!, patch.metadata?.labels);
    // A label or CA-injection patch has no spec.
    const conversion = (patch.spec as V1CustomResourceDefinition['spec'] | undefined)?.conversion;
    const service = conversion?.webhook?.clientConfig?.service;
    if (conversion && service) {
      // As config/crd/kustomizeconfig.yaml has kustomize rename the Service and set its namespace.
      service.name = `${defaults.namePrefix ?? ''}${service.name}`;
      service.namespace = defaults.namespace!;
      crd.spec.conversion = conversion;
    }
  }
  return crds;
}

/**
 * Cluster API's CRDs that CAPA's templates need besides CAPA's: the core's and clusterctl's inventory,
 * and the kubeadm bootstrap and control-plane providers' (all from provision-capa.sh), labelled as
 * `clusterctl init` labels them: `clusterctl move` finds the objects of labelled kinds alone.
 */
export function clusterApiCrds(installation: CapaInstallation = requireCapa()): V1CustomResourceDefinition[] {
  const crds = [...crdsOf(installation.clusterApiCrds), ...crdsOf(installation.kubeadmCrds)];
  for (const crd of crds) crd.metadata!.labels = { ...crd.metadata!.labels, [CLUSTERCTL_LABEL]: '' };
  return crds;
}
