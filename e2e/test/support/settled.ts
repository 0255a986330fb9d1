import {
  AuthorizationV1Api,
  CustomObjectsApi,
  KubeConfig,
  type V1CustomResourceDefinition,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { eventually } from './eventually.js';

/**
 * Waits for changes of the API itself to take effect, as a client would: a real kube-apiserver
 * serves a new CRD's resources a moment after it is created (discovery, then its storage: 429 until
 * then), and its RBAC authorizer reads bindings from a cache of its own. The kube-emulator is immediate.
 */

const client = <T>(kubeConfigYaml: string, api: new (...args: never[]) => T): T => {
  const config = new KubeConfig();
  config.loadFromString(kubeConfigYaml);
  return config.makeApiClient(api as never) as T;
};

/** Until discovery lists each CRD's resource at its storage version and a list of it is answered. */
export async function untilServed(kubeConfigYaml: string, crds: V1CustomResourceDefinition[]): Promise<void> {
  const custom = client(kubeConfigYaml, CustomObjectsApi);
  for (const { spec } of crds) {
    const version = spec.versions.find(({ storage }) => storage)!.name;
    const plural = spec.names.plural;
    await eventually(async () => {
      const { resources } = await custom.getAPIResources({ group: spec.group, version });
      expect(resources.map(({ name }) => name)).to.include(plural);
      await (spec.scope === 'Namespaced'
        ? custom.listCustomObjectForAllNamespaces({ group: spec.group, version, plural, limit: 1 })
        : custom.listClusterCustomObject({ group: spec.group, version, plural, limit: 1 }));
    });
  }
}

/** Until the kubeconfig's user may do each of `checks` (a SelfSubjectAccessReview, as `kubectl auth can-i` asks). */
export async function untilAllowed(kubeConfigYaml: string, checks: V1ResourceAttributes[]): Promise<void> {
  const authorization = client(kubeConfigYaml, AuthorizationV1Api);
  for (const resourceAttributes of checks) {
    await eventually(async () => {
      const review = await authorization.createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes } },
      });
      expect(review.status?.allowed, JSON.stringify(resourceAttributes)).to.equal(true);
    });
  }
}
