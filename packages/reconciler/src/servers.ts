import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Parses a Go-style bind address (`:8080`, `127.0.0.1:0`); undefined for `0` (disabled). */
export function parseBindAddress(text: string): { host: string; port: number } | undefined {
  if (text === '0') return undefined;
  const colon = text.lastIndexOf(':');
  const port = Number(text.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host: host || '0.0.0.0', port };
}

async function listen(server: Server, address: { host: string; port: number }): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, resolve);
  });
  const bound = server.address() as AddressInfo;
  return `http://${bound.address.includes(':') ? `[${bound.address}]` : bound.address}:${bound.port}`;
}

/** `/metrics` in the Prometheus text format. */
export async function serveMetrics(
  registry: Registry,
  address: { host: string; port: number },
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  return { url: await listen(server, address), server };
}

/** `/healthz` (the process answers) and `/readyz` (the caches are synced). */
export async function serveProbes(
  ready: () => boolean,
  address: { host: string; port: number },
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/healthz') response.writeHead(200).end('ok');
    else if (request.url === '/readyz') {
      if (ready()) response.writeHead(200).end('ok');
      else response.writeHead(503).end('caches not synced');
    } else response.writeHead(404).end();
  });
  return { url: await listen(server, address), server };
}
