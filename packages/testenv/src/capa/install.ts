import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiextensionsV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { TestEnvError } from '../errors.js';
import { capaCrds, clusterApiCrds } from './crds.js';
import { ensureCapa } from './installation.js';

/** Whether a CRD is served: Established, and a list of its storage version answers (429 until its storage is ready). */
async function served(config: KubeConfig, crd: V1CustomResourceDefinition): Promise<boolean> {
  const read = await config
    .makeApiClient(ApiextensionsV1Api)
    .readCustomResourceDefinition({ name: crd.metadata!.name! });
  if (!read.status?.conditions?.some(({ type, status }) => type === 'Established' && status === 'True')) return false;
  const version = crd.spec.versions.find(({ storage }) => storage)!.name;
  try {
    await KubernetesObjectApi.makeApiClient(config).list(
      `${crd.spec.group}/${version}`,
      crd.spec.names.kind,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      1,
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs on a cluster, as its admin (`kubeConfig`, YAML text), what a management cluster with
 * Cluster API and CAPA holds: Cluster API's core, inventory and kubeadm providers' CRDs and CAPA's
 * (capaCrds), and waits until every one is served. The same on the kube-emulator and kube-apiserver.
 * Provisions them first on a machine that has not (`ensureCapa`).
 */
export async function installCapa(kubeConfig: string, timeoutMs = 120_000): Promise<V1CustomResourceDefinition[]> {
  const config = new KubeConfig();
  config.loadFromString(kubeConfig);
  const installation = ensureCapa();
  const crds = [...clusterApiCrds(installation), ...capaCrds(installation)];
  const objects = KubernetesObjectApi.makeApiClient(config);
  for (const crd of crds) {
    try {
      await objects.create(crd);
    } catch (error) {
      throw new TestEnvError('ERR_KEYMASTER_TESTENV_CRDS', `the cluster refused the CRD ${crd.metadata!.name}`, {
        hint: 'its answer is the cause; the CRD is the provisioned one (provision-capa.sh, provision-clusterctl.sh)',
        cause: error,
      });
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    while (!(await served(config, crd))) {
      if (Date.now() > deadline) {
        throw new TestEnvError(
          'ERR_KEYMASTER_TESTENV_CRDS',
          `the CRD ${crd.metadata!.name} was not served after ${timeoutMs / 1000} s`,
          {
            hint: 'the cluster accepted it but did not establish it: see its status.conditions',
          },
        );
      }
      await sleep(100);
    }
  }
  return crds;
}
