import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AWSCluster } from '@keymaster/api';
import { writeServingCertificate } from '@keymaster/testenv';
import { expect } from 'chai';
import type { ClusterRead } from '../../src/inspect-api/access-review.js';
import { frontProxyConfigOf, type FrontProxyConfig, type FrontProxyUser } from '../../src/inspect-api/front-proxy.js';
import { inspectApiHandler } from '../../src/inspect-api/handler.js';
import type { Inspector } from '../../src/inspect-api/inspector.js';
import type { ClusterPlanReport } from '../../src/inspect/cluster-plan.js';
import { serveWebhooks, type WebhookServer } from '../../src/webhooks/server.js';
import { createControllerLogger } from '../../src/logging.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface Client {
  cert: string;
  key: string;
}

const cluster = (namespace: string, name: string): AWSCluster => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCluster',
  metadata: { namespace, name, uid: `${namespace}-${name}-uid` },
  spec: { region: 'us-west-2' },
});

const CLUSTERS = [cluster('tenant-a', 'a-prod'), cluster('tenant-a', 'a-dev'), cluster('tenant-b', 'b-prod')];

/**
 * The inspect API behind the controller's real HTTPS server, with a front-proxy CA and client
 * certificates of the test's own, a fake SubjectAccessReview and a fake inspector: who gets in, who
 * gets what, and what a refused caller costs (nothing).
 */
describe('the inspect API, as kube-apiserver proxies it', function () {
  this.timeout(30_000);
  let dir: string;
  let server: WebhookServer;
  let serverCa: string;
  let frontProxy: Client;
  let stranger: Client;
  let config: FrontProxyConfig;
  const reviews: { user: FrontProxyUser; read: ClusterRead }[] = [];
  const planned: string[][] = [];
  /** Namespaces the fake SubjectAccessReview allows, by user. */
  const allowed: Record<string, string[]> = { alice: ['tenant-a'], ops: ['tenant-a', 'tenant-b', ''] };
  /** While set, plans wait for it: a plan in progress. */
  let planGate: Promise<void> | undefined;
  /** The signal the latest plan was given. */
  let planSignal: AbortSignal | undefined;

  const inspector: Inspector = {
    cluster: (namespace, name) =>
      CLUSTERS.find(({ metadata }) => metadata.namespace === namespace && metadata.name === name),
    clusters: (namespace) =>
      CLUSTERS.filter(({ metadata }) => namespace === undefined || metadata.namespace === namespace),
    plan: async (clusters, signal) => {
      planSignal = signal;
      planned.push(clusters.map(({ metadata }) => `${metadata.namespace}/${metadata.name}`));
      await planGate;
      return clusters.map(({ metadata }): ClusterPlanReport => ({
        cluster: `${metadata.namespace}/${metadata.name}`,
        outcome: 'Planned',
        notes: [],
      }));
    },
    explain: (one) => Promise.resolve({ cluster: `${one.metadata.namespace}/${one.metadata.name}` } as never),
  };

  function send(
    path: string,
    {
      client,
      headers = {},
      method = 'GET',
    }: { client?: Client; headers?: Record<string, string | string[]>; method?: string },
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const call = request(
        `${server.url}${path}`,
        { method, headers, ca: serverCa, servername: 'localhost', ...(client ?? {}) },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
          );
        },
      );
      call.on('error', reject);
      call.end();
    });
  }
  const asUser = (user: string, groups: string[] = []) => ({
    client: frontProxy,
    headers: { 'X-Remote-User': user, 'X-Remote-Group': groups },
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-inspect-api-'));
    const files = async (name: string, ca: string): Promise<Client & { ca: string }> => {
      const certDir = join(dir, name);
      await mkdir(certDir);
      const { ca: pem } = await writeServingCertificate(certDir, ca);
      const [cert, key] = await Promise.all([
        readFile(join(certDir, 'tls.crt'), 'utf8'),
        readFile(join(certDir, 'tls.key'), 'utf8'),
      ]);
      return { cert, key, ca: pem };
    };
    const serving = await files('serving', 'serving-ca');
    serverCa = serving.ca;
    const proxy = await files('front-proxy', 'front-proxy-ca');
    frontProxy = { cert: proxy.cert, key: proxy.key };
    const rogue = await files('rogue', 'front-proxy-ca');
    stranger = { cert: rogue.cert, key: rogue.key };
    // The leaf certificates writeServingCertificate makes are named CN=webhook.
    config = frontProxyConfigOf({
      data: {
        'requestheader-client-ca-file': proxy.ca,
        'requestheader-allowed-names': '["webhook"]',
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      },
    })!;
    server = await serveWebhooks({
      port: 0,
      host: '127.0.0.1',
      certDir: join(dir, 'serving'),
      context: { logger: createControllerLogger('error', 'json') } as never,
      api: inspectApiHandler({
        frontProxy: () => Promise.resolve(config),
        review: (user, read) => {
          reviews.push({ user, read });
          return Promise.resolve({ allowed: (allowed[user.username] ?? []).includes(read.namespace ?? '') });
        },
        inspector,
        logger: createControllerLogger('error', 'json'),
        now: () => new Date(),
      }),
    });
  });
  after(async () => {
    await (server as WebhookServer | undefined)?.stop(); // undefined when before failed
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    reviews.length = 0;
    planned.length = 0;
  });

  it('serves its discovery to the front proxy: the group, its version and its resources', async () => {
    const { status, body } = await send('/apis/inspect.keymaster.dev/v1alpha1', { client: frontProxy });
    expect(status).to.equal(200);
    expect(body).to.include({ kind: 'APIResourceList', groupVersion: 'inspect.keymaster.dev/v1alpha1' });
    expect(
      (body['resources'] as { name: string; verbs: string[] }[]).map(({ name, verbs }) => `${name} ${verbs.join(',')}`),
    ).to.deep.equal(['awsclusterplans get,list', 'awsclusterexplanations get']);
    const groups = await send('/apis', { client: frontProxy });
    expect((groups.body['groups'] as { name: string }[]).map(({ name }) => name)).to.deep.equal([
      'inspect.keymaster.dev',
    ]);
  });

  it('refuses whoever is not the front proxy, whatever user its headers name, before any review', async () => {
    const path = '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans/a-prod';
    const forged = { 'X-Remote-User': 'ops', 'X-Remote-Group': 'system:masters' };
    for (const client of [undefined, stranger]) {
      const { status, body } = await send(path, { ...(client ? { client } : {}), headers: forged });
      expect(status).to.equal(401);
      expect(body).to.include({ kind: 'Status', reason: 'Unauthorized' });
    }
    // The front proxy's own certificate with a name it may not use: refused too.
    const strict = { ...config, allowedNames: ['front-proxy-client'] };
    const saved = config;
    config = strict;
    try {
      expect((await send(path, { client: frontProxy, headers: forged })).status).to.equal(401);
    } finally {
      config = saved;
    }
    expect(reviews).to.deep.equal([]);
    expect(planned).to.deep.equal([]);
  });

  it("answers a cluster's plan to a user the review allows, reviewing that user's read of that cluster", async () => {
    const { status, body } = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans/a-prod',
      asUser('alice', ['tenant-a-developers', 'system:authenticated']),
    );
    expect(status).to.equal(200);
    expect(body).to.deep.include({
      apiVersion: 'inspect.keymaster.dev/v1alpha1',
      kind: 'AWSClusterPlan',
      metadata: { name: 'a-prod', namespace: 'tenant-a', uid: 'tenant-a-a-prod-uid' },
    });
    expect((body['report'] as ClusterPlanReport).cluster).to.equal('tenant-a/a-prod');
    expect(reviews).to.deep.equal([
      {
        user: { username: 'alice', groups: ['tenant-a-developers', 'system:authenticated'], extra: {} },
        read: { verb: 'get', namespace: 'tenant-a', name: 'a-prod' },
      },
    ]);
  });

  it("refuses another tenant's cluster with a Status naming the user and the read, and plans nothing", async () => {
    const { status, body } = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-b/awsclusterplans/b-prod',
      asUser('alice', ['tenant-a-developers']),
    );
    expect(status).to.equal(403);
    expect(body).to.include({ kind: 'Status', reason: 'Forbidden' });
    expect(body['message']).to.equal(
      'awsclusterplans.inspect.keymaster.dev "b-prod" is forbidden: User "alice" cannot get AWSCluster tenant-b/b-prod (get awsclusters.infrastructure.keymaster.dev): a cluster\'s plan and explanation are for whoever may read the cluster',
    );
    const all = await send('/apis/inspect.keymaster.dev/v1alpha1/awsclusterplans', asUser('alice'));
    expect(all.status).to.equal(403);
    expect(reviews.map(({ read }) => read)).to.deep.equal([
      { verb: 'get', namespace: 'tenant-b', name: 'b-prod' },
      { verb: 'list' },
    ]);
    expect(planned).to.deep.equal([]);
  });

  it("lists a namespace's plans and every namespace's, to whoever may list the clusters", async () => {
    const namespace = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans',
      asUser('alice'),
    );
    expect(namespace.status).to.equal(200);
    expect(namespace.body['kind']).to.equal('AWSClusterPlanList');
    expect(
      (namespace.body['items'] as { metadata: { name: string } }[]).map(({ metadata }) => metadata.name),
    ).to.deep.equal(['a-prod', 'a-dev']);
    const all = await send('/apis/inspect.keymaster.dev/v1alpha1/awsclusterplans', asUser('ops'));
    expect((all.body['items'] as unknown[]).length).to.equal(3);
    expect(reviews.map(({ read }) => read)).to.deep.equal([{ verb: 'list', namespace: 'tenant-a' }, { verb: 'list' }]);
  });

  it('answers an explanation, a missing cluster, a write and an unknown path as the API server would', async () => {
    const explained = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterexplanations/a-dev',
      asUser('alice'),
    );
    expect(explained.status).to.equal(200);
    expect(explained.body).to.deep.include({
      kind: 'AWSClusterExplanation',
      explanation: { cluster: 'tenant-a/a-dev' },
    });
    const missing = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans/nope',
      asUser('alice'),
    );
    expect(missing.status).to.equal(404);
    expect(missing.body['details']).to.deep.equal({
      group: 'inspect.keymaster.dev',
      kind: 'awsclusterplans',
      name: 'nope',
    });
    const write = await send('/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans/a-prod', {
      ...asUser('alice'),
      method: 'DELETE',
    });
    expect(write.status).to.equal(405);
    // Explanations are one cluster's: no list.
    const list = await send(
      '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterexplanations',
      asUser('alice'),
    );
    expect(list.status).to.equal(404);
  });

  it('inspects one request per namespace at a time: another of that namespace is refused (429), not queued', async () => {
    let open!: () => void;
    planGate = new Promise((resolve) => (open = resolve));
    const path = '/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-a/awsclusterplans/a-prod';
    const first = send(path, asUser('alice'));
    // The first is planning once its plan started.
    while (planned.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = await send(path, asUser('alice'));
    expect(second.status).to.equal(429);
    expect(second.body).to.include({ reason: 'TooManyRequests' });
    expect((second.body['details'] as { retryAfterSeconds: number }).retryAfterSeconds).to.equal(1);
    // Another namespace is not held up.
    planGate = undefined;
    expect(
      (await send('/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-b/awsclusterplans/b-prod', asUser('ops')))
        .status,
    ).to.equal(200);
    open();
    expect((await first).status).to.equal(200);
    expect(planned).to.have.length(2);
  });

  it('stops planning for a caller that went away (kube-apiserver timed it out)', async () => {
    let open!: () => void;
    planGate = new Promise((resolve) => (open = resolve));
    const call = request(`${server.url}/apis/inspect.keymaster.dev/v1alpha1/namespaces/tenant-b/awsclusterplans`, {
      ca: serverCa,
      servername: 'localhost',
      ...frontProxy,
      headers: { 'X-Remote-User': 'ops' },
    });
    call.on('error', () => undefined);
    call.end();
    while (planned.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(planSignal?.aborted).to.equal(false);
    call.destroy();
    while (!planSignal?.aborted) await new Promise((resolve) => setImmediate(resolve));
    planGate = undefined;
    open();
  });
});
