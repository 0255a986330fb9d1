import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { issueCertificate, type Certificate } from '../../src/auth/certificate.js';

/** One request an aggregated server was sent. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The common name of the client certificate it came with. */
  client: string;
}

/**
 * A tiny aggregated server for `/apis/<group>/<version>`: it serves as `<service>.<namespace>.svc`,
 * takes only clients with a certificate the front-proxy CA signed, answers discovery with one
 * namespaced resource `things`, answers every other request with a Thing that echoes its X-Remote-*
 * headers, and remembers all.
 */
export class EchoServer {
  readonly received: Received[] = [];
  readonly certificate: Certificate;
  private server: Server | undefined;
  port = 0;

  constructor(
    private readonly groupVersion: string,
    serverName: string,
    private readonly frontProxyCa: string,
  ) {
    this.certificate = issueCertificate({ commonName: serverName, hosts: [serverName], ca: true });
  }

  get caBundle(): string {
    return Buffer.from(this.certificate.cert).toString('base64');
  }

  async start(port = 0): Promise<void> {
    const server = createServer(
      { ...this.certificate, requestCert: true, rejectUnauthorized: true, ca: this.frontProxyCa },
      (request, response) => {
        const path = new URL(request.url ?? '/', 'https://echo').pathname;
        const client = (request.socket as TLSSocket).getPeerCertificate().subject.CN;
        this.received.push({ path, headers: request.headers, client: String(client) });
        const body =
          path === `/apis/${this.groupVersion}`
            ? {
                kind: 'APIResourceList',
                apiVersion: 'v1',
                groupVersion: this.groupVersion,
                resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get'] }],
              }
            : {
                apiVersion: this.groupVersion,
                kind: 'Thing',
                metadata: { name: path.split('/').at(-1), namespace: path.split('/')[5] },
                user: request.headers['x-remote-user'],
                groups: request.headersDistinct['x-remote-group'] ?? [],
                extra: Object.fromEntries(
                  Object.entries(request.headers).filter(([name]) => name.startsWith('x-remote-extra-')),
                ),
                authorization: request.headers.authorization ?? null,
              };
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(body));
      },
    );
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Requests other than the availability probes (which come as system:kube-aggregator). */
  calls(): Received[] {
    return this.received.filter(({ headers }) => headers['x-remote-user'] !== 'system:kube-aggregator');
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
