import type { Manifest } from '../emulated/manifests.js';

export interface AggregatedApi {
  /** The API group and version the server serves under `/apis/<group>/<version>`. */
  group: string;
  version: string;
  /** The namespace and name of its Service: its serving certificate must hold `<service>.<namespace>.svc`. */
  namespace: string;
  service: string;
  /** The port it listens on at localhost. */
  port: number;
  /** The PEM of the CA that signed its serving certificate (writeServingCertificate's `ca`). */
  ca: string;
}

/**
 * The Service and APIService that register a local aggregated API server with either backend (create
 * the Service's namespace first): an ExternalName Service `localhost`, which kube-apiserver (and the
 * kube-emulator) resolves to `localhost:<the APIService's port>`, since neither routes cluster IPs
 * here. The server trusts the front-proxy CA of kube-system/extension-apiserver-authentication.
 */
export function aggregatedApiObjects(api: AggregatedApi): [service: Manifest, apiService: Manifest] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: api.service, namespace: api.namespace },
      spec: { type: 'ExternalName', externalName: 'localhost' },
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${api.version}.${api.group}` },
      spec: {
        group: api.group,
        version: api.version,
        service: { namespace: api.namespace, name: api.service, port: api.port },
        caBundle: Buffer.from(api.ca).toString('base64'),
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    },
  ];
}
