import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { writeServingCertificate } from '@keymaster/testenv';
import { expect } from 'chai';
import { eventually } from './eventually.js';
import { kubectl } from './kubectl.js';
import { freePort, webhookManifests } from './webhooks.js';

/** The Service deploy/webhooks/inspect-api.yaml's APIService names, as kube-apiserver checks the certificate for it. */
const SERVICE = { name: 'keymaster-webhook', namespace: 'keymaster-system' };
const API_SERVICE = 'v1alpha1.inspect.keymaster.dev';

/** What a controller serving the inspect API on this machine is started with, and installed with. */
export interface InspectApiSetup {
  /** The controller's HTTPS port, on this machine. */
  port: number;
  /** `keymaster run`'s flags: the HTTPS server, its certificate, and the CA written into the APIService. */
  args: string[];
  /** deploy/webhooks' inspect API and CA injector RBAC, its Service pointed at this machine. */
  objects: KubernetesObject[];
}

/**
 * deploy/webhooks/inspect-api.yaml as installed, but its Service an ExternalName `localhost` and the
 * APIService's port the controller's: neither backend has cluster DNS or kube-proxy, and both resolve
 * an ExternalName Service as kube-apiserver does (`externalName:port`). The serving certificate is valid
 * for the Service's name, which kube-apiserver verifies.
 */
export async function inspectApiSetup(dir: string): Promise<InspectApiSetup> {
  const port = await freePort();
  const certDir = join(dir, 'inspect-api-certs');
  await mkdir(certDir, { recursive: true });
  await writeServingCertificate(certDir, 'keymaster-webhook-ca', [`${SERVICE.name}.${SERVICE.namespace}.svc`]);
  const manifests = (await webhookManifests('inspect-api.yaml')).map((object) =>
    object.kind === 'APIService'
      ? { ...object, spec: { ...(object as { spec: object }).spec, service: { ...SERVICE, port } } }
      : object,
  );
  return {
    port,
    args: [`--webhook-port=${port}`, `--webhook-cert-dir=${certDir}`, '--webhook-inject-ca-bundle'],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: SERVICE,
        spec: { type: 'ExternalName', externalName: 'localhost' },
      } as KubernetesObject,
      ...(await webhookManifests('ca-injector-rbac.yaml')),
      ...manifests,
    ],
  };
}

/** Waits until kube-apiserver finds the controller's inspect API available (its CA injected, its discovery answered). */
export async function untilInspectApiAvailable(dir: string, opsKubeConfig: string): Promise<void> {
  await eventually(
    async () => {
      const found = await kubectl(dir, opsKubeConfig, ['get', 'apiservice', API_SERVICE, '-o', 'json']);
      const { status } = JSON.parse(found.stdout) as {
        status?: { conditions?: { type: string; status: string; message?: string }[] };
      };
      const available = status?.conditions?.find(({ type }) => type === 'Available');
      expect(available?.status, available?.message).to.equal('True');
    },
    { timeoutMs: 120_000 },
  );
}
