import { services } from '../resources/builtins/services.js';
import type { Store } from '../storage/store.js';
import { isObject, objectAt, stringAt, text, type JsonObject } from '../util/json.js';

/** Where an APIService's requests go, and how its serving certificate is checked. */
export interface Backend {
  /** `host:port` to dial; undefined when kube-apiserver would resolve a cluster IP nothing here routes to. */
  address: string | undefined;
  /** What kube-apiserver would dial (`10.96.0.12:443`), for its error messages. */
  shownAddress: string;
  /** `<service>.<namespace>.svc`: the name its serving certificate must hold. */
  serverName: string;
  /** The PEM of spec.caBundle; undefined trusts nothing (or everything, with insecureSkipTLSVerify). */
  ca: string | undefined;
  insecure: boolean;
}

/** Why an APIService's Service cannot be used, as the availability controller words it. */
export interface Unusable {
  reason: string;
  message: string;
}

const serviceOf = (apiService: JsonObject): JsonObject | undefined => objectAt(objectAt(apiService, 'spec'), 'service');

/** The namespace and name of an APIService's Service, if it has one (a local APIService has none). */
export function serviceReference(
  apiService: JsonObject,
): { namespace: string; name: string; port: number } | undefined {
  const service = serviceOf(apiService);
  if (!service) return undefined;
  return { namespace: text(service.namespace), name: text(service.name), port: Number(service.port ?? 443) };
}

/**
 * kube-apiserver's cluster-IP service resolver (without --enable-aggregator-routing): an ExternalName
 * Service is `externalName:port`, the others their cluster IP, which nothing here routes to. The
 * checks before it are the availability controller's (a missing Service, a ClusterIP Service's port
 * and endpoints: the emulator has no EndpointSlices, so such a Service is never available).
 */
export function resolveBackend(store: Store, apiService: JsonObject): Backend | Unusable {
  const reference = serviceReference(apiService)!;
  const { namespace, name, port } = reference;
  const service = store.get(services.storageKey, namespace, name);
  if (!service) return { reason: 'ServiceNotFound', message: `service/${name} in "${namespace}" is not present` };
  const spec = objectAt(service, 'spec') ?? {};
  const type = stringAt(spec, 'type') ?? 'ClusterIP';
  if (type === 'ClusterIP') {
    const ports = Array.isArray(spec.ports) ? spec.ports : [];
    if (!ports.some((entry) => isObject(entry) && entry.port === port)) {
      return {
        reason: 'ServicePortError',
        message: `service/${name} in "${namespace}" is not listening on port ${port}`,
      };
    }
    return { reason: 'EndpointsNotFound', message: `cannot find endpointslices for service/${name} in "${namespace}"` };
  }
  const apiSpec = objectAt(apiService, 'spec') ?? {};
  const caBundle = stringAt(apiSpec, 'caBundle');
  const external = type === 'ExternalName';
  const host = external ? text(spec.externalName) : text(spec.clusterIP);
  const shownAddress = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    address: external ? shownAddress : undefined,
    shownAddress,
    serverName: `${name}.${namespace}.svc`,
    ca: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined,
    insecure: apiSpec.insecureSkipTLSVerify === true,
  };
}

export const isBackend = (resolved: Backend | Unusable): resolved is Backend => 'serverName' in resolved;
