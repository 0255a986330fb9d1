import type { IssuerDocument } from './oidc.js';

/** What a request path addresses. */
export type Route =
  | { kind: 'version' | 'health' | 'openapi-v2' | 'openapi-v3-index' }
  | { kind: 'openapi-v3'; group: string; version: string }
  | { kind: 'core-versions' }
  | { kind: 'groups' }
  | { kind: 'group'; group: string }
  | { kind: 'resources'; group: string; version: string }
  | { kind: 'admin'; segments: string[] }
  | { kind: 'issuer'; document: IssuerDocument }
  | {
      kind: 'resource';
      group: string;
      version: string;
      plural: string;
      namespace?: string;
      name?: string;
      subresource?: string;
      /** The legacy `/watch/` path prefix. */
      watchPath: boolean;
    };

function resourceRoute(group: string, version: string, rest: string[]): Route | undefined {
  let segments = rest;
  const watchPath = segments[0] === 'watch';
  if (watchPath) segments = segments.slice(1);
  let namespace: string | undefined;
  const namespaceSubresource =
    group === '' &&
    segments[0] === 'namespaces' &&
    segments.length === 3 &&
    ['status', 'finalize'].includes(segments[2]!);
  if (segments[0] === 'namespaces' && segments.length >= 3 && !namespaceSubresource) {
    namespace = segments[1];
    segments = segments.slice(2);
  }
  const [plural, name, subresource, ...extra] = segments;
  if (!plural || extra.length > 0) return undefined;
  return {
    kind: 'resource',
    group,
    version,
    plural,
    watchPath,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/** Parses a request path (without the query) into what it addresses; undefined for unknown paths. */
export function parseRoute(pathname: string): Route | undefined {
  const segments = pathname
    .split('/')
    .filter((segment) => segment.length > 0)
    .map(decodeURIComponent);
  const [first, second, third, ...rest] = segments;
  switch (first) {
    case 'version':
      return segments.length === 1 ? { kind: 'version' } : undefined;
    case 'healthz':
    case 'livez':
    case 'readyz':
      return { kind: 'health' };
    case '_emulator':
      return { kind: 'admin', segments: segments.slice(1) };
    case '.well-known':
      return second === 'openid-configuration' && segments.length === 2
        ? { kind: 'issuer', document: 'openid-configuration' }
        : undefined;
    case 'openid':
      return second === 'v1' && third === 'jwks' && segments.length === 3
        ? { kind: 'issuer', document: 'jwks' }
        : undefined;
    case 'openapi':
      if (second === 'v2' && segments.length === 2) return { kind: 'openapi-v2' };
      if (second === 'v3' && segments.length === 2) return { kind: 'openapi-v3-index' };
      if (second === 'v3' && third === 'api' && rest.length === 1)
        return { kind: 'openapi-v3', group: '', version: rest[0]! };
      if (second === 'v3' && third === 'apis' && rest.length === 2)
        return { kind: 'openapi-v3', group: rest[0]!, version: rest[1]! };
      return undefined;
    case 'api':
      if (second === undefined) return { kind: 'core-versions' };
      if (third === undefined) return { kind: 'resources', group: '', version: second };
      return resourceRoute('', second, segments.slice(2));
    case 'apis': {
      if (second === undefined) return { kind: 'groups' };
      if (third === undefined) return { kind: 'group', group: second };
      if (rest.length === 0) return { kind: 'resources', group: second, version: third };
      return resourceRoute(second, third, rest);
    }
    default:
      return undefined;
  }
}

/**
 * A query string as Go's url.ParseQuery reads it: pairs split on `&`, `+` as a space, and a pair
 * with a bad escape (`%%%`) or a `;` dropped (kube-apiserver then ignores that parameter).
 */
export function parseQuery(search: string): URLSearchParams {
  const query = new URLSearchParams();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const [key, value = ''] = pair.split(/=(.*)/s) as [string, string?];
    try {
      const decode = (part: string): string => decodeURIComponent(part.replaceAll('+', ' '));
      query.append(decode(key), decode(value));
    } catch {
      // a bad escape: Go skips the pair
    }
  }
  return query;
}
