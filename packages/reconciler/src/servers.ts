import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeymasterMetrics } from './metrics.js';

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

/** What `/metrics` serves: the registry, and the names of its metrics that are prom-client's defaults. */
export type ServedMetrics = Pick<KeymasterMetrics, 'registry' | 'defaults'>;

/**
 * Some of the registry's metrics, in the Prometheus text format, in the order asked. Where one is a
 * default metric, every default one is collected first: some are set in a sibling's collect only.
 */
async function someMetrics({ registry, defaults }: ServedMetrics, names: readonly string[]): Promise<string> {
  if (names.some((name) => defaults.includes(name)))
    await Promise.all(defaults.map((name) => registry.getSingleMetric(name)!.get()));
  const texts: string[] = [];
  for (const name of names) texts.push(await registry.getSingleMetricAsString(name));
  return `${texts.join('\n')}\n`;
}

/**
 * `/metrics` in the Prometheus text format; `/metrics?name[]=A&name[]=B` for those metrics only. A
 * reader polling a few figures often (the benchmark, a script) then costs the controller those alone:
 * every series of every account and region is about 1 MB at 2,000 accounts.
 */
export async function serveMetrics(
  metrics: ServedMetrics,
  address: { host: string; port: number },
): Promise<{ url: string; server: Server }> {
  const { registry } = metrics;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://metrics');
    if (url.pathname !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    const names = url.searchParams.getAll('name[]');
    const unknown = names.filter((name) => !registry.getSingleMetric(name));
    if (unknown.length > 0) {
      response
        .writeHead(400, { 'Content-Type': 'text/plain' })
        .end(`name[]: no metric ${unknown.join(', ')}; ask for names GET /metrics lists, or for none to get all\n`);
      return;
    }
    (names.length > 0 ? someMetrics(metrics, names) : registry.metrics()).then(
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
