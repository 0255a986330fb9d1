import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { REPO_ROOT } from './controller-process.js';
import { eventually } from './eventually.js';
import { kubectl } from './kubectl.js';

/** A port nothing listens on now, for `--webhook-port` (the configurations must name it before the controller starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * deploy/webhooks/webhooks.yaml as installed, but each webhook's Service reference turned into a URL
 * on this machine: neither the kube-emulator nor testenv's kube-apiserver (no cluster DNS, no
 * kube-proxy) can reach a Service, and both call `url` webhooks natively.
 */
export async function webhookConfigurations(port: number): Promise<KubernetesObject[]> {
  const text = await readFile(join(REPO_ROOT, 'deploy/webhooks/webhooks.yaml'), 'utf8');
  return (
    loadAllYaml(text) as (KubernetesObject & { webhooks: { clientConfig: { service?: { path?: string } } }[] })[]
  ).map((configuration) => {
    for (const webhook of configuration.webhooks) {
      webhook.clientConfig = { url: `https://127.0.0.1:${port}${webhook.clientConfig.service?.path ?? ''}` } as never;
    }
    return configuration;
  });
}

/** One file of deploy/webhooks, as kubectl apply reads it. */
export async function webhookManifests(file: string): Promise<KubernetesObject[]> {
  return loadAllYaml(await readFile(join(REPO_ROOT, 'deploy/webhooks', file), 'utf8')) as KubernetesObject[];
}

/**
 * What a namespace self-service tool might grant a tenant's developers: get, update and patch of its
 * own Namespace (resources: `namespaces`, and its subresources when listed).
 */
export function namespaceSelfService(tenant: string, resources: string[]): KubernetesObject[] {
  const name = `${tenant}-namespace-self-service`;
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [{ apiGroups: [''], resources, resourceNames: [tenant], verbs: ['get', 'patch', 'update'] }],
    } as KubernetesObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `${tenant}-developers` }],
    } as KubernetesObject,
  ];
}

/** Waits until the controller, under its RBAC, has written its CA into every validating webhook. */
export async function untilCaBundleInjected(dir: string, opsKubeConfig: string): Promise<void> {
  await eventually(async () => {
    const found = await kubectl(dir, opsKubeConfig, [
      'get',
      'validatingwebhookconfiguration',
      'keymaster',
      '-o',
      'json',
    ]);
    const { webhooks } = JSON.parse(found.stdout) as {
      webhooks: { name: string; clientConfig: { caBundle?: string } }[];
    };
    expect(webhooks).to.not.be.empty;
    for (const { name, clientConfig } of webhooks)
      expect(clientConfig.caBundle, `${name}: caBundle injected`).to.be.a('string');
  });
}
