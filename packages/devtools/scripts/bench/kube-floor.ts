/**
 * The least time the API server needs for the Kubernetes writes a cold start cannot do without, the
 * other floor of the cold start beside AWS's quotas: per cluster the AWSCluster's finalizer, its
 * ledger created with the claim (before any AWS write), the ledger again with the memory (after AWS
 * accepted), and the status. The driver makes that many writes of one of the controller's kinds
 * itself, before the controllers start: AWSClusterLedgers in a namespace of their own, each created and
 * replaced three times, `IN_FLIGHT` at once over kept-alive connections, then deleted (not timed).
 */
import { Agent as HttpAgent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, type AWSClusterLedgerSpec } from '@keymaster/api';

/** The writes per cluster a cold start needs: finalizer, ledger with the claim, ledger with the memory, status. */
export const MINIMUM_KUBE_WRITES_PER_CLUSTER = 4;
/** The writes per cluster an edit of its tags needs: the ledger's memory and the status. */
export const MINIMUM_KUBE_WRITES_PER_EDIT = 2;
const NAMESPACE = 'keymaster-bench-floor';
/** Requests in flight at once: the API server, not the driver, should be what limits the writes. */
const IN_FLIGHT = 32;
const LEDGERS = `/apis/${API_VERSION}/namespaces/${NAMESPACE}/awsclusterledgers`;

export interface KubeFloor {
  writes: number;
  seconds: number;
}

interface Answer {
  status: number;
  body: string;
}

/** A ledger of the size a cluster of 20 resources has: its claim, its memory `round` (0 to 2) after its first. */
export function floorLedgerSpec(index: number, round: number): AWSClusterLedgerSpec {
  // The ledger's own widths: 12 characters a fingerprint, 16 a resource.
  const fingerprint = (layer: string) => `${layer}${String(index).padStart(10, '0')}${round}`;
  return {
    claims: [
      { accountID: '200000000000', region: 'us-east-1', clusterName: `floor-${index}`, since: '2026-11-28T00:00:00Z' },
    ],
    ...(round === 0
      ? {}
      : {
          memory: [
            {
              resources: Array.from({ length: 20 }, (_, resource) =>
                `${index}`.padStart(8, '0').concat(String(resource).padStart(8, '0')),
              ),
              global: [fingerprint('g'), fingerprint('h')],
              account: [fingerprint('a')],
              cluster: [fingerprint('c'), fingerprint('d')],
            },
          ],
        }),
  };
}

/** Sends `body` to `path` of the API server, answering its status and body (no status throws). */
type Send = (method: string, path: string, body?: unknown) => Promise<Answer>;

async function sender(kubeConfig: KubeConfig): Promise<{ send: Send; close: () => void }> {
  const server = new URL(kubeConfig.getCurrentCluster()!.server);
  const secure = server.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const base: RequestOptions = { host: server.hostname, port: server.port, agent, headers: {} };
  await kubeConfig.applyToHTTPSOptions(base);
  // Its credentials' headers (a token), never an array of raw headers here.
  const auth = base.headers as OutgoingHttpHeaders;
  const request = secure ? httpsRequest : httpRequest;
  const send: Send = (method, path, body) =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers = { ...auth, ...(text ? { 'content-type': 'application/json' } : {}) };
      request({ ...base, method, path, headers }, (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: answer }));
      })
        .on('error', reject)
        .end(text);
    });
  return { send, close: () => agent.destroy() };
}

const expect = ({ status, body }: Answer, ok: readonly number[], what: string): Answer => {
  if (!ok.includes(status)) throw new Error(`the Kubernetes floor: ${what}: ${status} ${body.slice(0, 300)}`);
  return { status, body };
};

/** One cluster's minimum writes: its ledger created, then replaced three times. */
async function clusterWrites(send: Send, index: number): Promise<void> {
  const name = `floor-${index}`;
  const created = expect(
    await send('POST', LEDGERS, {
      apiVersion: API_VERSION,
      kind: 'AWSClusterLedger',
      metadata: { name, namespace: NAMESPACE },
      spec: floorLedgerSpec(index, 0),
    }),
    [201],
    `create ${name}`,
  );
  let { metadata } = JSON.parse(created.body) as { metadata: { resourceVersion: string } };
  for (let round = 1; round < MINIMUM_KUBE_WRITES_PER_CLUSTER; round++) {
    const replaced = expect(
      await send('PUT', `${LEDGERS}/${name}`, {
        apiVersion: API_VERSION,
        kind: 'AWSClusterLedger',
        metadata: { name, namespace: NAMESPACE, resourceVersion: metadata.resourceVersion },
        spec: floorLedgerSpec(index, ((round - 1) % 2) + 1),
      }),
      [200],
      `replace ${name}`,
    );
    ({ metadata } = JSON.parse(replaced.body) as { metadata: { resourceVersion: string } });
  }
}

/** Makes `clusters` clusters' minimum writes and answers how long the API server took for them. */
export async function measureKubeFloor(kubeConfig: KubeConfig, clusters: number): Promise<KubeFloor> {
  const { send, close } = await sender(kubeConfig);
  try {
    expect(
      await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }),
      [201, 409],
      `create namespace ${NAMESPACE}`,
    );
    let next = 0;
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(IN_FLIGHT, clusters) }, async () => {
        for (let index = next++; index < clusters; index = next++) await clusterWrites(send, index);
      }),
    );
    const seconds = Number(((performance.now() - startedAt) / 1000).toFixed(1));
    expect(await send('DELETE', LEDGERS), [200], `delete the ledgers of ${NAMESPACE}`);
    return { writes: clusters * MINIMUM_KUBE_WRITES_PER_CLUSTER, seconds };
  } finally {
    close();
  }
}
