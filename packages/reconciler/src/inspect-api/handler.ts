import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { GROUP, type AWSCluster } from '@keymaster/api';
import { describeKubeError } from '../kube/errors.js';
import type { Logger } from '../logging.js';
import type { AccessReview, ClusterRead } from './access-review.js';
import { frontProxyUser, isFrontProxy, type FrontProxyConfig, type FrontProxyUser } from './front-proxy.js';
import type { Inspector } from './inspector.js';
import {
  INSPECT_API_VERSION,
  INSPECT_GROUP,
  INSPECT_RESOURCES,
  inspectGroup,
  inspectResourceList,
  type InspectResource,
} from './resources.js';
import { failure, ok, send, type Reply } from './status.js';
import { Turns } from './turns.js';

export interface InspectApiOptions {
  /** How kube-apiserver authenticates to us (kube-system/extension-apiserver-authentication), read again when asked. */
  frontProxy(refresh: boolean): Promise<FrontProxyConfig | undefined>;
  review: AccessReview;
  inspector: Inspector;
  logger: Logger;
  now(): Date;
}

/** What a path asks: discovery, or a resource of one cluster, a namespace's or all. */
type ResourceRoute = { resource: InspectResource; namespace?: string; name?: string } | { notFound: string };
type Route = { discovery: object } | ResourceRoute;

const PREFIX = `/apis/${INSPECT_API_VERSION}`;

function routeOf(path: string): Route {
  if (path === '/apis') return { discovery: { kind: 'APIGroupList', apiVersion: 'v1', groups: [inspectGroup()] } };
  if (path === `/apis/${INSPECT_GROUP}`) return { discovery: inspectGroup() };
  if (path === PREFIX) return { discovery: inspectResourceList() };
  if (!path.startsWith(`${PREFIX}/`)) return { notFound: `the server could not find the requested resource (${path})` };
  const parts = path
    .slice(PREFIX.length + 1)
    .split('/')
    .map(decodeURIComponent);
  const resourceOf = (plural: string | undefined) =>
    Object.values(INSPECT_RESOURCES).find((resource) => resource.plural === plural);
  const [first, namespace, plural, name, ...rest] = parts;
  if (parts.length === 1) {
    const resource = resourceOf(first);
    return resource?.list ? { resource } : { notFound: `the server could not find the requested resource (${path})` };
  }
  const resource = resourceOf(plural);
  if (first !== 'namespaces' || !namespace || !resource || rest.length > 0 || (name === undefined && !resource.list))
    return { notFound: `the server could not find the requested resource (${path})` };
  return { resource, namespace, ...(name ? { name } : {}) };
}

/** The AWSClusters a read names, as RBAC names the read. */
const clusterRead = ({ namespace, name }: { namespace?: string; name?: string }): ClusterRead => ({
  verb: name === undefined ? 'list' : 'get',
  ...(namespace === undefined ? {} : { namespace }),
  ...(name === undefined ? {} : { name }),
});

function describeRead({ namespace, name }: ClusterRead): string {
  if (name !== undefined) return `get AWSCluster ${namespace ?? ''}/${name}`;
  return namespace === undefined
    ? 'list the AWSClusters of every namespace'
    : `list the AWSClusters of namespace ${namespace}`;
}

/**
 * The inspect API's requests, as kube-apiserver proxies them: only from its front proxy (the client
 * certificate its front-proxy CA issued), for the user it names, allowed only what a
 * SubjectAccessReview of that user on the AWSClusters concerned allows; one inspection per namespace at
 * a time (a tenant cannot queue the controller's AWS reads up for others).
 */
export function inspectApiHandler(
  options: InspectApiOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const turns = new Turns();
  const authenticate = async (request: IncomingMessage): Promise<FrontProxyConfig | undefined> => {
    const socket = request.socket as TLSSocket;
    const config = await options.frontProxy(false);
    if (config && isFrontProxy(socket, config, options.now())) return config;
    // kube-apiserver may have rotated its front-proxy CA since it was read.
    const fresh = await options.frontProxy(true);
    return fresh && isFrontProxy(socket, fresh, options.now()) ? fresh : undefined;
  };

  const serve = async (route: ResourceRoute, user: FrontProxyUser, signal: AbortSignal): Promise<Reply> => {
    if ('notFound' in route) return failure('NotFound', route.notFound);
    const { resource } = route;
    const read = clusterRead(route);
    const review = await options.review(user, read);
    if (!review.allowed)
      return failure(
        'Forbidden',
        `${resource.plural}.${INSPECT_GROUP}${route.name ? ` "${route.name}"` : ''} is forbidden: User "${user.username}" cannot ${describeRead(read)} (${read.verb} awsclusters.${GROUP}): a cluster's plan and explanation are for whoever may read the cluster${review.reason ? `: ${review.reason}` : ''}`,
        { group: INSPECT_GROUP, kind: resource.plural, ...(route.name ? { name: route.name } : {}) },
      );
    const turn = route.namespace ?? '';
    if (!turns.take(turn))
      return failure(
        'TooManyRequests',
        `the controller is already inspecting ${route.namespace ? `namespace ${route.namespace}` : 'clusters'} for someone: one inspection per namespace at a time`,
        { group: INSPECT_GROUP, kind: resource.plural, retryAfterSeconds: 1 },
      );
    try {
      const namespace = route.namespace;
      if (route.name !== undefined) {
        const cluster = options.inspector.cluster(namespace ?? '', route.name);
        if (!cluster)
          return failure('NotFound', `${resource.plural}.${INSPECT_GROUP} "${route.name}" not found`, {
            group: INSPECT_GROUP,
            kind: resource.plural,
            name: route.name,
          });
        return ok(await objectOf(options.inspector, resource, cluster));
      }
      const clusters = options.inspector.clusters(namespace);
      const reports = await options.inspector.plan(clusters, signal);
      const items = clusters.map((cluster, index) => planObject(cluster, reports[index]));
      return ok({
        apiVersion: INSPECT_API_VERSION,
        kind: `${resource.kind}List`,
        metadata: {},
        items,
      });
    } finally {
      turns.give(turn);
    }
  };

  const answer = async (request: IncomingMessage, signal: AbortSignal): Promise<Reply> => {
    const config = await authenticate(request);
    if (!config)
      return failure(
        'Unauthorized',
        'the inspect API answers kube-apiserver only (its front-proxy client certificate)',
      );
    if (request.method !== 'GET')
      return failure('MethodNotAllowed', `the inspect API is read-only: ${request.method ?? ''} is not supported`);
    const route = routeOf(new URL(request.url ?? '/', 'https://keymaster').pathname);
    // Discovery is the same for everyone the front proxy sends (its availability check names no one).
    if ('discovery' in route) return ok(route.discovery);
    const user = frontProxyUser(request.headersDistinct, config);
    if (!user) return failure('Unauthorized', 'the front proxy named no user');
    return serve(route, user, signal);
  };

  return (request, response) => {
    // A caller gone (its request timed out at kube-apiserver) leaves no plan running on.
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    answer(request, gone.signal).then(
      (reply) => send(response, reply),
      (error: unknown) => {
        options.logger.error('inspect API request failed', { path: request.url, error: describeKubeError(error) });
        if (!response.headersSent)
          send(response, failure('InternalError', 'the controller could not answer: see its log'));
      },
    );
  };
}

const metadataOf = (cluster: AWSCluster) => ({
  name: cluster.metadata.name,
  namespace: cluster.metadata.namespace,
  ...(cluster.metadata.uid ? { uid: cluster.metadata.uid } : {}),
});

const planObject = (cluster: AWSCluster, report: unknown) => ({
  apiVersion: INSPECT_API_VERSION,
  kind: INSPECT_RESOURCES.plan.kind,
  metadata: metadataOf(cluster),
  report,
});

async function objectOf(inspector: Inspector, resource: InspectResource, cluster: AWSCluster): Promise<object> {
  if (resource === INSPECT_RESOURCES.plan) return planObject(cluster, (await inspector.plan([cluster]))[0]);
  return {
    apiVersion: INSPECT_API_VERSION,
    kind: INSPECT_RESOURCES.explanation.kind,
    metadata: metadataOf(cluster),
    explanation: await inspector.explain(cluster),
  };
}
