import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** What the aggregated server was sent: the path and the identity the front proxy vouched for. */
export interface Echoed {
  path: string;
  user: string | undefined;
  uid: string | undefined;
  groups: string[];
  /** X-Remote-Extra-* header names, lower-cased. */
  extras: string[];
  /** Whether the caller's Authorization header came through (it must not). */
  authorization: boolean;
}

/**
 * A tiny aggregated API server for `/apis/<groupVersion>`: it serves with the given certificate,
 * takes only clients whose certificate one of the front-proxy CAs signed for `front-proxy-client`
 * (the extension-apiserver-authentication ConfigMap's requestheader CA and allowed names), answers
 * discovery (one resource, `things`, with a status subresource), and echoes the identity of every other request. Requests are recorded, the availability
 * probes (system:kube-aggregator) apart.
 */
export class AggregatedServer {
  readonly calls: Echoed[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    private readonly groupVersion: string,
    private readonly tls: { cert: string; key: string },
    private readonly frontProxyCas: string[],
    private readonly allowedNames: string[],
  ) {}

  async start(): Promise<void> {
    const server = createServer(
      { ...this.tls, requestCert: true, rejectUnauthorized: true, ca: this.frontProxyCas },
      (request, response) => {
        const common = String((request.socket as TLSSocket).getPeerCertificate().subject.CN);
        if (!this.allowedNames.includes(common)) {
          response.writeHead(401).end();
          return;
        }
        const path = new URL(request.url ?? '/', 'https://aggregated').pathname;
        const echoed: Echoed = {
          path,
          user: request.headers['x-remote-user'] as string | undefined,
          uid: request.headers['x-remote-uid'] as string | undefined,
          groups: request.headersDistinct['x-remote-group'] ?? [],
          extras: Object.keys(request.headers).filter((name) => name.startsWith('x-remote-extra-')),
          authorization: request.headers.authorization !== undefined,
        };
        if (echoed.user !== 'system:kube-aggregator') this.calls.push(echoed);
        const body =
          path === `/apis/${this.groupVersion}`
            ? {
                kind: 'APIResourceList',
                apiVersion: 'v1',
                groupVersion: this.groupVersion,
                resources: [
                  { name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list'] },
                  { name: 'things/status', singularName: '', namespaced: true, kind: 'Thing', verbs: ['get'] },
                ],
              }
            : echoed;
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(body));
      },
    );
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
