import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceAccountIssuer } from '../auth/service-accounts/issuer.js';
import { methodNotAllowed } from './status.js';

/** The issuer's OIDC documents kube-apiserver serves. */
export type IssuerDocument = 'openid-configuration' | 'jwks';

/**
 * `/.well-known/openid-configuration` and `/openid/v1/jwks`, as kube-apiserver serves them: GET
 * only, public caching for the keys' lifetime (an hour), the key set as `application/jwk-set+json`.
 */
export function serveIssuerDocument(
  issuer: ServiceAccountIssuer,
  document: IssuerDocument,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (request.method !== 'GET') throw methodNotAllowed();
  const [body, contentType] =
    document === 'jwks'
      ? [issuer.jwks(), 'application/jwk-set+json']
      : [issuer.openIdConfiguration(), 'application/json'];
  const payload = JSON.stringify(body);
  response.writeHead(200, {
    'Content-Type': contentType,
    'Cache-Control': 'public, max-age=3600',
    'Content-Length': String(Buffer.byteLength(payload)),
  });
  response.end(payload);
}
