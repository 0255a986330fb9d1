import type { IncomingMessage, ServerResponse } from 'node:http';
import { isBackend, resolveBackend } from '../aggregation/backend.js';
import type { FrontProxy } from '../aggregation/front-proxy.js';
import { proxyRequest, serviceUnavailable } from '../aggregation/proxy.js';
import type { User } from '../auth/tokens.js';
import { apiServices, availableCondition } from '../resources/builtins/apiregistration.js';
import type { Store } from '../storage/store.js';
import { objectAt, type JsonObject } from '../util/json.js';

/** The APIService that hands `/apis/<group>/<version>` to a Service, if one does (a local one does not). */
export function claimingApiService(store: Store, group: string, version: string): JsonObject | undefined {
  const apiService = store.get(apiServices.storageKey, undefined, `${version}.${group}`);
  return objectAt(objectAt(apiService, 'spec'), 'service') ? apiService : undefined;
}

/** kube-apiserver's RequestInfo verb of a request under an aggregated group version. */
export function aggregatedVerb(method: string, named: boolean, watching: boolean): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    case 'GET':
    case 'HEAD':
      return watching ? 'watch' : named ? 'get' : 'list';
    default:
      return '';
  }
}

/**
 * kube-aggregator's proxy handler, after authentication and authorization: an APIService that is
 * not Available answers 503 `service unavailable`; otherwise the request goes to its backend.
 */
export async function serveAggregated(
  store: Store,
  frontProxy: FrontProxy,
  apiService: JsonObject,
  user: User,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  if (availableCondition(apiService)?.status !== 'True') throw serviceUnavailable();
  const backend = resolveBackend(store, apiService);
  if (!isBackend(backend) || backend.address === undefined) throw serviceUnavailable();
  await proxyRequest(frontProxy, { ...backend, address: backend.address }, user, request, response, url);
}
