import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { impersonate } from '../auth/impersonation.js';
import { forbiddenPath, forbiddenRequest, type RbacAuthorizer, type ResourceRequest } from '../auth/rbac.js';
import type { User } from '../auth/tokens.js';
import type { FrontProxy } from '../aggregation/front-proxy.js';
import type { ApiServiceAvailability } from '../controllers/apiservices.js';
import {
  aggregatedDiscovery,
  coreVersions,
  group,
  groupList,
  resourceList,
  type RemoteVersion,
} from '../discovery/discovery.js';
import { apiServices } from '../resources/builtins/apiregistration.js';
import { aggregatedVerb, claimingApiService, serveAggregated } from './aggregated.js';
import { encodeSwagger, OPENAPI_V2_PROTOBUF } from '../discovery/openapi-v2.js';
import type { OpenApi } from '../discovery/openapi.js';
import type { Faults } from '../observe/faults.js';
import type { Stats } from '../observe/stats.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceDef } from '../resources/types.js';
import { selfSubjectReviews, tokenReviews } from '../resources/builtins/authentication.js';
import { createToken, reviewSelf, reviewToken, type AuthenticationParts } from './authentication.js';
import { reviewAccess } from './authorization.js';
import { selfSubjectAccessReviews, subjectAccessReviews } from '../resources/builtins/authorization.js';
import { handleResource, type Api, type Call } from './handlers.js';
import { serveIssuerDocument, type IssuerDocument } from './oidc.js';
import { negotiate } from './negotiate.js';
import { sendError, sendJson } from './respond.js';
import { parseQuery, parseRoute, type Route } from './route.js';
import { ApiError, methodNotAllowed, PageNotFound, pathNotFound, unauthorized, verbNotSupported } from './status.js';
import { isBuiltinGroupVersion } from '../resources/registry.js';
import { objectAt, text } from '../util/json.js';
import { GIT_VERSION, KUBERNETES_MINOR } from '../version.js';

export interface ServerParts extends Api, AuthenticationParts {
  registry: ResourceRegistry;
  openApi: OpenApi;
  stats: Stats;
  faults: Faults;
  /** With `authorization: 'RBAC'`; without it every authenticated user may do everything. */
  authorizer: RbacAuthorizer | undefined;
  admin: (segments: string[], request: IncomingMessage, response: ServerResponse) => Promise<void>;
  /** The client certificate requests to aggregated servers are sent with. */
  frontProxy: FrontProxy;
  /** The APIServices' availability, and what their servers' discovery last answered. */
  availability: ApiServiceAvailability;
}

type ResourceRoute = Extract<Route, { kind: 'resource' }>;

export const VERSION = {
  major: '1',
  minor: String(KUBERNETES_MINOR),
  // Compatibility versions (KEP-4330): the emulated version, and the oldest it can be rolled back to.
  emulationMajor: '1',
  emulationMinor: String(KUBERNETES_MINOR),
  minCompatibilityMajor: '1',
  minCompatibilityMinor: String(KUBERNETES_MINOR - 1),
  gitVersion: GIT_VERSION,
  gitCommit: 'kube-emulator',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.26.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const watchingOf = (route: ResourceRoute, query: URLSearchParams): boolean =>
  route.watchPath || query.get('watch') === 'true' || query.get('watch') === '1';

function verbOf(method: string, route: ResourceRoute, query: URLSearchParams): string {
  const watching = watchingOf(route, query);
  switch (method) {
    case 'GET':
      if (watching) return 'watch';
      return route.name === undefined ? 'list' : 'get';
    case 'POST':
      // A named path takes a POST only on a subresource (serviceaccounts/NAME/token).
      return route.name === undefined || route.subresource !== undefined ? 'create' : 'unsupported';
    case 'PUT':
      return route.name === undefined ? 'unsupported' : 'update';
    case 'PATCH':
      return route.name === undefined ? 'unsupported' : 'patch';
    case 'DELETE':
      return route.name === undefined ? 'deletecollection' : 'delete';
    default:
      return 'unsupported';
  }
}

/**
 * The resource a route addresses, when the path is one it serves (scope and subresource included).
 * What it does not serve is a NotFound Status under built-in group versions, and Go's plain 404
 * elsewhere (unknown groups and versions, custom resources), as kube-apiserver's handler chain answers.
 */
function resolve(registry: ResourceRegistry, route: ResourceRoute, verb: string): ResourceDef {
  const resource = registry.find(route.group, route.version, route.plural);
  const notServed = (): ApiError =>
    resource?.crdName === undefined && isBuiltinGroupVersion(route.group, route.version)
      ? pathNotFound()
      : new PageNotFound();
  if (!resource) throw notServed();
  if (!resource.namespaced && route.namespace !== undefined) throw notServed();
  if (resource.namespaced && route.name !== undefined && route.namespace === undefined) throw notServed();
  if (route.subresource === 'token' && resource.kind === 'ServiceAccount' && resource.group === '') {
    if (verb !== 'create') throw methodNotAllowed();
    return resource;
  }
  if (route.subresource !== undefined) {
    const served =
      (route.subresource === 'status' && resource.statusSubresource) ||
      (route.subresource === 'finalize' && resource.kind === 'Namespace');
    if (!served) throw notServed();
    // kube-apiserver's finalize REST is an Update alone: every other method is 405.
    if (route.subresource === 'finalize' && verb !== 'update') throw methodNotAllowed();
    if (!['get', 'update', 'patch'].includes(verb)) {
      throw verbNotSupported(verb === 'unsupported' ? 'create' : verb, resource);
    }
  }
  if (resource.verbs && !resource.verbs.includes(verb)) throw methodNotAllowed();
  if (verb === 'create' && resource.namespaced && route.namespace === undefined) {
    throw resource.crdName === undefined ? methodNotAllowed() : new PageNotFound();
  }
  if (verb === 'unsupported') throw methodNotAllowed();
  return resource;
}

const resourceName = (route: ResourceRoute): string => (route.group ? `${route.plural}.${route.group}` : route.plural);

/**
 * Counts a request under its requester (as kube-apiserver's audit log names the user who sent it),
 * then returns whom it acts as: the requester, or the user its Impersonate-* headers name when it
 * may impersonate them (a refusal counts as forbidden, worded for `resource` when it asks for one).
 */
function actingUser(
  parts: ServerParts,
  request: IncomingMessage,
  requester: User,
  verb: string,
  counted: string,
  resource?: ResourceRequest,
): User {
  parts.stats.record(verb, counted, requester.name);
  try {
    return impersonate(request, requester, parts.authorizer, resource);
  } catch (error) {
    if (error instanceof ApiError && error.code === 403) parts.stats.recordForbidden(verb, counted, requester.name);
    throw error;
  }
}

/** What RBAC is asked for a request to a resource. */
const resourceRequest = (route: ResourceRoute, verb: string): ResourceRequest => ({
  verb,
  group: route.group,
  resource: route.plural,
  subresource: route.subresource,
  // As kube-apiserver does, a request for one Namespace is in that namespace.
  namespace: route.group === '' && route.plural === 'namespaces' ? route.name : route.namespace,
  name: route.name,
});

/** RBAC, before anything else looks at the request (so a refused request learns nothing, not even a 404). */
function authorize(parts: ServerParts, route: ResourceRoute, verb: string, user: User, requester: User): void {
  if (!parts.authorizer || verb === 'unsupported') return;
  const request = resourceRequest(route, verb);
  const decision = parts.authorizer.decide(user, request);
  if (decision.allowed) return;
  parts.stats.recordForbidden(verb, resourceName(route), requester.name);
  throw forbiddenRequest(user, request, decision.reason);
}

async function serveResource(
  parts: ServerParts,
  route: ResourceRoute,
  requester: User,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const query = parseQuery(url.search);
  const method = request.method ?? 'GET';
  // A group version an APIService hands to an aggregated server: authorized here as any resource
  // (a method without a RequestInfo verb as the verb "", which only `*` allows), then proxied.
  const apiService = claimingApiService(parts.objects.store, route.group, route.version);
  const verb = apiService
    ? aggregatedVerb(method, route.name !== undefined, watchingOf(route, query))
    : verbOf(method, route, query);
  const user = actingUser(parts, request, requester, verb, resourceName(route), resourceRequest(route, verb));
  authorize(parts, route, verb, user, requester);
  if (apiService) {
    return serveAggregated(parts.objects.store, parts.frontProxy, apiService, user, request, response, url);
  }
  const resource = resolve(parts.registry, route, verb);
  const fault = parts.faults.decide(verb, resourceName(route));
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (fault.error) throw fault.error;
  const call: Call = {
    request,
    response,
    query,
    user,
    resource,
    verb,
    namespace: route.namespace,
    name: route.name,
    subresource: route.subresource,
    representation: negotiate(request.headers.accept, query.get('includeObject')),
  };
  if (route.subresource === 'token') return createToken(parts, call);
  if (resource === tokenReviews) return reviewToken(parts, call);
  if (resource === selfSubjectReviews) return reviewSelf(call);
  if (resource === selfSubjectAccessReviews || resource === subjectAccessReviews) {
    return reviewAccess(parts.authorizer, call);
  }
  await handleResource(parts, call);
}

/** The issuer's OIDC documents: non-resource paths, authorized by path (kube-apiserver's nonResourceURLs). */
function serveIssuer(
  parts: ServerParts,
  document: IssuerDocument,
  requester: User,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): void {
  const verb = (request.method ?? 'GET').toLowerCase();
  const user = actingUser(parts, request, requester, verb, path);
  if (parts.authorizer && !parts.authorizer.allowsPath(user, verb, path)) {
    parts.stats.recordForbidden(verb, path, requester.name);
    throw forbiddenPath(user, verb, path);
  }
  serveIssuerDocument(parts.issuer, document, request, response);
}

/** The group versions APIServices hand to aggregated servers, with the resources each last served. */
function remoteVersions(parts: ServerParts): RemoteVersion[] {
  const remote: RemoteVersion[] = [];
  for (const [name, apiService] of parts.objects.store.list(apiServices.storageKey)) {
    const spec = objectAt(apiService, 'spec');
    if (!objectAt(spec, 'service')) continue;
    remote.push({
      group: text(spec?.group),
      version: text(spec?.version),
      resources: parts.availability.resourcesOf(name),
    });
  }
  return remote;
}

async function serveDiscovery(
  parts: ServerParts,
  route: Route,
  user: User,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const { registry } = parts;
  if (route.kind === 'resources') {
    const apiService = claimingApiService(parts.objects.store, route.group, route.version);
    if (apiService)
      return serveAggregated(parts.objects.store, parts.frontProxy, apiService, user, request, response, url);
  }
  const remote = remoteVersions(parts);
  if (route.kind === 'core-versions' || route.kind === 'groups') {
    const representation = negotiate(request.headers.accept, null, true);
    if (representation.kind === 'discovery') {
      const contentType = `application/json;g=apidiscovery.k8s.io;v=${representation.version};as=APIGroupDiscoveryList`;
      sendJson(
        response,
        200,
        aggregatedDiscovery(registry, remote, route.kind === 'core-versions', representation.version),
        {
          contentType,
        },
      );
      return;
    }
    sendJson(response, 200, route.kind === 'core-versions' ? coreVersions() : groupList(registry, remote));
    return;
  }
  const document =
    route.kind === 'group'
      ? group(registry, remote, route.group)
      : route.kind === 'resources'
        ? resourceList(registry, route.group, route.version)
        : undefined;
  // Only the core group's unknown versions get a Status; unknown groups and versions are Go's plain 404.
  if (!document) throw route.kind === 'resources' && route.group === '' ? pathNotFound() : new PageNotFound();
  sendJson(response, 200, document);
}

function serveOpenApi(parts: ServerParts, route: Route, request: IncomingMessage, response: ServerResponse): void {
  if (route.kind === 'openapi-v2') {
    if ((request.headers.accept ?? '').includes('protobuf')) {
      const body = encodeSwagger(parts.openApi.swagger());
      response.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF, 'Content-Length': String(body.length) });
      response.end(body);
    } else sendJson(response, 200, parts.openApi.swagger());
    return;
  }
  if (route.kind === 'openapi-v3-index') {
    // kube-openapi writes the index without a Content-Type: Go's sniffing names it text.
    sendJson(response, 200, parts.openApi.index(), { contentType: 'text/plain; charset=utf-8' });
    return;
  }
  if (route.kind !== 'openapi-v3') throw new PageNotFound();
  const document = parts.openApi.groupVersion(route.group, route.version);
  if (!document) {
    // kube-apiserver's OpenAPI v3 handler answers an unknown group version with an empty 404.
    response.writeHead(404, { 'Content-Length': '0' });
    response.end();
    return;
  }
  sendJson(response, 200, document);
}

/** The HTTP entry point: authentication, accounting, faults, then the path's handler. */
export function createRequestListener(
  parts: ServerParts,
): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = parseRoute(url.pathname);
    if (route?.kind === 'version') {
      sendJson(response, 200, VERSION);
      return;
    }
    if (route?.kind === 'health') {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end('ok');
      return;
    }
    const requester = parts.authenticator.request(request.headers.authorization);
    if (!requester) throw unauthorized();
    // kube-apiserver serves the issuer's documents only for an https issuer; otherwise the paths are unknown.
    if (route?.kind === 'issuer' && parts.issuer.discoveryServed) {
      serveIssuer(parts, route.document, requester, request, response, url.pathname);
      return;
    }
    if (!route || route.kind === 'issuer') {
      actingUser(parts, request, requester, 'get', url.pathname);
      throw new PageNotFound();
    }
    if (route.kind === 'resource') {
      return serveResource(parts, route, requester, request, response, url);
    }
    // The admin paths observe the emulator: they are not counted as API requests.
    if (route.kind === 'admin') return parts.admin(route.segments, request, response);
    const verb = (request.method ?? 'GET').toLowerCase();
    const user = actingUser(parts, request, requester, verb, url.pathname);
    // Discovery and OpenAPI are system:discovery's: every authenticated user's, no anonymous one's.
    if (parts.authorizer && !parts.authorizer.allowsPath(user, verb, url.pathname)) {
      parts.stats.recordForbidden(verb, url.pathname, requester.name);
      throw forbiddenPath(user, verb, url.pathname);
    }
    if (route.kind.startsWith('openapi')) {
      serveOpenApi(parts, route, request, response);
      return;
    }
    await serveDiscovery(parts, route, user, request, response, url);
  };
  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof ApiError) sendError(response, error);
      else
        sendError(
          response,
          new ApiError(
            500,
            'InternalError',
            `Internal error occurred: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    });
  };
}
