import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { API_WARNING_MESSAGE, logApiWarnings, warningTexts } from '../../src/kube/api-warnings.js';
import { PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';
import { createControllerLogger } from '../../src/logging.js';

const FINALIZER_WARNING =
  'metadata.finalizers: "awscluster.infrastructure.keymaster.dev": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers';

/** `299 - "text"`, as kube-apiserver writes a Warning header (quotes and backslashes escaped). */
const header = (text: string) => `299 - "${text.replace(/["\\]/g, '\\$&')}"`;

describe('API server warnings', () => {
  it('are read from Warning headers, several joined by ", " as fetch joins them, quotes unescaped', () => {
    expect(warningTexts(undefined)).to.deep.equal([]);
    expect(warningTexts('')).to.deep.equal([]);
    expect(warningTexts(header(FINALIZER_WARNING))).to.deep.equal([FINALIZER_WARNING]);
    const second = 'unknown field "spec.x", and "a\\b"';
    expect(warningTexts(`${header(FINALIZER_WARNING)}, ${header(second)}`)).to.deep.equal([FINALIZER_WARNING, second]);
    expect(warningTexts('299 kube-apiserver "with an agent" "Wed, 21 Oct 2026 07:28:00 GMT"')).to.deep.equal([
      'with an agent',
    ]);
  });

  it("reach onWarning from every API client of the controller's KubeConfig, and no further without one", async () => {
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.setHeader('warning', [header(FINALIZER_WARNING), header('second, with a comma')]);
      response.end(JSON.stringify({ apiVersion: 'v1', kind: 'NamespaceList', metadata: {}, items: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const reported: string[] = [];
      const load = (config: PooledKubeConfig) => {
        config.loadFromOptions({
          clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
          users: [{ name: 'u', token: 'not-a-secret' }],
          contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
          currentContext: 'x',
        });
        return config.makeApiClient(CoreV1Api);
      };
      const api = load(new PooledKubeConfig((text) => reported.push(text)));
      expect((await api.listNamespace()).items).to.deep.equal([]);
      expect(reported).to.deep.equal([FINALIZER_WARNING, 'second, with a comma']);
      // Calls with options of their own (the writer's merge patches) keep the middleware.
      await api.patchNamespace({ name: 'x', body: {} }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      expect(reported).to.have.length(4);
      expect((await load(new PooledKubeConfig()).listNamespace()).kind).to.equal('NamespaceList');
    } finally {
      server.close();
    }
  });

  it('are logged at warn with a stable message, each text once', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const log = logApiWarnings(createControllerLogger('info', 'json', stream));
    log(FINALIZER_WARNING);
    log('another');
    log(FINALIZER_WARNING);
    await new Promise((resolve) => setImmediate(resolve));
    const parsed = lines.map((line) => JSON.parse(line) as { level: string; message: string; warning: string });
    expect(parsed.map(({ level, message, warning }) => ({ level, message, warning }))).to.deep.equal([
      { level: 'warn', message: API_WARNING_MESSAGE, warning: FINALIZER_WARNING },
      { level: 'warn', message: API_WARNING_MESSAGE, warning: 'another' },
    ]);
  });
});
