import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { goNetworkError } from '../admission/call.js';
import type { User } from '../auth/tokens.js';
import { PlainTextError } from '../api/status.js';
import type { Backend } from './backend.js';
import { REQUEST_HEADERS, type FrontProxy } from './front-proxy.js';

/** Go's http.Error(w, message, 503), as kube-aggregator answers when it cannot reach a backend. */
export const serviceUnavailable = (message = 'service unavailable'): PlainTextError =>
  new PlainTextError(503, 'ServiceUnavailable', `${message}\n`);

/** client-go's headerKeyEscape: an extra's key with every byte but RFC 3986's unreserved ones %-encoded. */
export const escapeHeaderKey = (key: string): string =>
  [...Buffer.from(key, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

/** Headers the proxy never forwards: credentials (already used), hop-by-hop ones, and any identity the caller claims. */
const DROPPED =
  /^(authorization|impersonate-.*|x-remote-.*|host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade)$/i;

/** client-go's SetAuthProxyHeaders: whom the request is from, in the request headers aggregated servers trust. */
export function identityHeaders(user: User): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { [REQUEST_HEADERS.username]: user.name };
  if (user.uid) headers[REQUEST_HEADERS.uid] = user.uid;
  if (user.groups.length > 0) headers[REQUEST_HEADERS.group] = user.groups;
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    headers[`${REQUEST_HEADERS.extraPrefix}${escapeHeaderKey(key)}`] = values;
  }
  return headers;
}

/** The TLS options of a call to a backend: the front proxy's client certificate, the backend's CA and name. */
export const tlsOptions = (frontProxy: FrontProxy, backend: Backend, verify: boolean) => ({
  cert: frontProxy.client.cert,
  key: frontProxy.client.key,
  servername: backend.serverName,
  rejectUnauthorized: verify && !backend.insecure,
  ...(backend.ca ? { ca: backend.ca } : {}),
});

/**
 * Forwards an authenticated, authorized request to an aggregated server as kube-aggregator's proxy
 * handler does: same method, path, query and body; the caller's credentials and claimed identity
 * dropped; the user it acts as in X-Remote-* headers, over TLS with the front proxy's client
 * certificate. A backend it cannot reach is a 503 with Go's words for why.
 */
export function proxyRequest(
  frontProxy: FrontProxy,
  backend: Backend & { address: string },
  user: User,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (!DROPPED.test(name)) headers[name] = value;
  const forwardedFor = [request.headers['x-forwarded-for'], request.socket.remoteAddress].filter(Boolean).join(', ');
  Object.assign(headers, identityHeaders(user), { 'X-Forwarded-For': forwardedFor });
  const target = new URL(`https://${backend.address}${url.pathname}${url.search}`);
  return new Promise((resolve, reject) => {
    const call = httpsRequest(
      target,
      { method: request.method, headers, ...tlsOptions(frontProxy, backend, true) },
      (answer) => {
        const kept = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !DROPPED.test(name)));
        response.writeHead(answer.statusCode ?? 502, kept);
        answer.pipe(response);
        answer.on('end', resolve);
        answer.on('error', reject);
      },
    );
    call.on('error', (error: NodeJS.ErrnoException) => {
      reject(serviceUnavailable(goNetworkError(error, target)));
    });
    // A caller that goes away (a watch ended) ends the backend's request too.
    response.on('close', () => call.destroy());
    request.pipe(call);
  });
}
