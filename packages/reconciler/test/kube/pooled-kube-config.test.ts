import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';

/** An API server stand-in that answers every request with an empty NamespaceList and counts connections. */
async function countingServer(): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ apiVersion: 'v1', kind: 'NamespaceList', metadata: {}, items: [] }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, connections: () => connections };
}

function load(config: KubeConfig, server: string): KubeConfig {
  config.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'not-a-secret' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return config;
}

describe('PooledKubeConfig', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  const callsMake = async (config: KubeConfig) => {
    const { server, url, connections } = await countingServer();
    stop = () => server.close();
    server.keepAliveTimeout = 60_000;
    const api = load(config, url).makeApiClient(CoreV1Api);
    for (let call = 0; call < 10; call++) await api.listNamespace();
    server.closeAllConnections();
    return connections();
  };

  it('makes 10 API calls over one connection', async () => {
    expect(await callsMake(new PooledKubeConfig())).to.equal(1);
  });

  it('where client-node alone opens one connection per call', async () => {
    expect(await callsMake(new KubeConfig())).to.equal(10);
  });
});
