import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { kubectl, kubectlBinary } from '../helpers/kubectl.js';
import { EchoServer } from './echo-server.js';

const TOKENS = `root-token,root,0,system:masters
alice-token,alice,alice-uid,tenants
eve-token,eve,3
`;
const GROUP = 'echo.example.com';
const PATH = `/apis/${GROUP}/v1/namespaces/team/things/one`;
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

/** Polls `read` until `accept` takes its value (conditions, never a fixed sleep, decide). */
async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

describe('aggregation: APIServices proxied to aggregated servers, as kube-aggregator does', function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  let echo: EchoServer;
  const as = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(cluster.emulator, method, path, body, { authorization: `Bearer ${token}`, ...headers });
  const available = async () => {
    const answer = await as('root-token', 'GET', `${APISERVICES}/v1.${GROUP}`);
    const conditions = (
      answer.body as { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }
    ).status?.conditions;
    return conditions?.find((condition) => condition.type === 'Available');
  };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-aggregation-'));
    writeFileSync(join(folder, 'tokens.csv'), TOKENS);
    cluster = await startTestCluster({ tokenAuthFile: join(folder, 'tokens.csv'), authorization: 'RBAC', tls: true });
    echo = new EchoServer(`${GROUP}/v1`, 'echo.aggregated.svc', cluster.emulator.frontProxyCaCertificate);
    await echo.start();
    await as('root-token', 'POST', '/api/v1/namespaces', { metadata: { name: 'aggregated' } });
    await as('root-token', 'POST', '/api/v1/namespaces/aggregated/services', {
      metadata: { name: 'echo' },
      spec: { type: 'ExternalName', externalName: 'localhost' },
    });
    const created = await as('root-token', 'POST', APISERVICES, {
      metadata: { name: `v1.${GROUP}` },
      spec: {
        group: GROUP,
        version: 'v1',
        service: { namespace: 'aggregated', name: 'echo', port: echo.port },
        caBundle: echo.caBundle,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await eventually(available, (condition) => condition?.status === 'True', 'Available');
  });
  after(async () => {
    await echo.stop();
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('marks an APIService whose backend answers discovery Available (Passed)', async () => {
    expect(await available()).to.include({ status: 'True', reason: 'Passed', message: 'all checks passed' });
    const probe = echo.received.find(({ headers }) => headers['x-remote-user'] === 'system:kube-aggregator');
    expect(probe?.path).to.equal(`/apis/${GROUP}/v1`);
    expect(probe?.headers['x-remote-group']).to.equal('system:masters');
  });

  it('sends an allowed user as X-Remote-* headers with the front-proxy client certificate, never its token', async () => {
    const answer = await as('root-token', 'GET', PATH);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.include({
      user: 'root',
      groups: ['system:masters', 'system:authenticated'],
      authorization: null,
    });
    const sent = echo.calls().at(-1)!;
    expect(sent.client).to.equal('front-proxy-client');
    expect(sent.headers['x-remote-uid']).to.equal('0');
  });

  it("refuses a user RBAC does not allow with the API server's 403, and never calls the backend", async () => {
    const before = echo.calls().length;
    const answer = await as('eve-token', 'GET', PATH);
    expect(answer.status).to.equal(403);
    expect((answer.body as { message: string }).message).to.equal(
      `things.${GROUP} "one" is forbidden: User "eve" cannot get resource "things" in API group "${GROUP}" in the namespace "team"`,
    );
    expect(echo.calls()).to.have.length(before);
  });

  it('sends the user RBAC allowed, not the X-Remote-* headers the caller forged', async () => {
    await as('root-token', 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await as('root-token', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', {
      metadata: { name: 'things' },
      rules: [{ apiGroups: [GROUP], resources: ['things'], verbs: ['get'] }],
    });
    await as('root-token', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
      metadata: { name: 'alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'things' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    const answer = await as('alice-token', 'GET', PATH, undefined, {
      'X-Remote-User': 'root',
      'X-Remote-Group': 'system:masters',
      'X-Remote-Extra-Scopes': 'all',
    });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.include({
      user: 'alice',
      groups: ['tenants', 'system:authenticated'],
      authorization: null,
    });
    expect(echo.calls().at(-1)!.headers).not.to.have.property('x-remote-extra-scopes');
  });

  it("sends a service account's extras as X-Remote-Extra-<key>, the key %-escaped as client-go does", async () => {
    await as('root-token', 'POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'robot' } });
    await as('root-token', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
      metadata: { name: 'robot' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'things' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'team' }],
    });
    const issued = await as('root-token', 'POST', '/api/v1/namespaces/team/serviceaccounts/robot/token', {
      spec: { audiences: [] },
    });
    const token = (issued.body as { status: { token: string } }).status.token;
    const answer = await as(token, 'GET', PATH);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const { user, extra } = answer.body as { user: string; extra: Record<string, string> };
    expect(user).to.equal('system:serviceaccount:team:robot');
    expect(Object.keys(extra)).to.deep.equal(['x-remote-extra-authentication.kubernetes.io%2fcredential-id']);
    expect(Object.values(extra)[0]).to.match(/^JTI=/);
  });

  it('authorizes a method that has no verb as the verb "", which only `*` allows', async () => {
    const before = echo.calls().length;
    expect((await as('alice-token', 'OPTIONS', PATH)).status).to.equal(403);
    expect(echo.calls()).to.have.length(before);
    expect((await as('root-token', 'OPTIONS', PATH)).status).to.equal(200);
  });

  it('marks a local APIService (no service) Available at once', async () => {
    await as('root-token', 'POST', APISERVICES, {
      metadata: { name: 'v1.local.example.com' },
      spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    const local = async () =>
      (
        (await as('root-token', 'GET', `${APISERVICES}/v1.local.example.com`)).body as {
          status?: { conditions?: { reason: string }[] };
        }
      ).status?.conditions?.[0];
    expect(await eventually(local, (condition) => condition !== undefined, 'Available')).to.include({
      type: 'Available',
      status: 'True',
      reason: 'Local',
      message: 'Local APIServices are always available',
    });
  });

  it("serves kubectl's get --raw and get of the aggregated resource (found by aggregated discovery)", async () => {
    const kubeconfig = join(folder, 'alice.kubeconfig');
    await cluster.emulator.writeKubeConfig(kubeconfig, { token: 'alice-token' });
    const binary = kubectlBinary(33);
    const raw = await kubectl(binary, kubeconfig, ['get', '--raw', PATH]);
    expect(raw.code, raw.stderr).to.equal(0);
    expect(JSON.parse(raw.stdout)).to.deep.include({ user: 'alice' });
    const got = await kubectl(binary, kubeconfig, ['get', 'things', 'one', '-n', 'team', '-o', 'jsonpath={.user}']);
    expect(got.code, got.stderr).to.equal(0);
    expect(got.stdout).to.equal('alice');
    const refused = await kubectl(binary, kubeconfig, ['get', '--raw', PATH.replace('/team/', '/other/')]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('(Forbidden)');
  });

  it('lists the aggregated group in /apis, /apis/<group> and aggregated discovery', async () => {
    const groups = (await as('root-token', 'GET', '/apis')).body as { groups: { name: string }[] };
    expect(groups.groups.map(({ name }) => name)).to.include(GROUP);
    expect((await as('root-token', 'GET', `/apis/${GROUP}`)).body).to.deep.include({
      preferredVersion: { groupVersion: `${GROUP}/v1`, version: 'v1' },
    });
    const discovery = await as('root-token', 'GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const items = (discovery.body as { items: { metadata: { name: string }; versions: unknown[] }[] }).items;
    expect(items.find(({ metadata }) => metadata.name === GROUP)?.versions).to.deep.equal([
      {
        version: 'v1',
        resources: [
          {
            resource: 'things',
            responseKind: { group: '', version: '', kind: 'Thing' },
            scope: 'Namespaced',
            singularResource: 'thing',
            verbs: ['get'],
          },
        ],
        freshness: 'Current',
      },
    ]);
  });

  it('publishes the front proxy in kube-system/extension-apiserver-authentication', async () => {
    const answer = await as(
      'root-token',
      'GET',
      '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
    );
    expect((answer.body as { data: Record<string, string> }).data).to.deep.equal({
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-client-ca-file': cluster.emulator.frontProxyCaCertificate,
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-username-headers': '["X-Remote-User"]',
    });
  });

  it('answers SubjectAccessReviews for the user they name', async () => {
    const answer = await as('root-token', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: {
        user: 'alice',
        groups: ['tenants'],
        resourceAttributes: { group: GROUP, resource: 'things', verb: 'get', namespace: 'team' },
      },
    });
    expect((answer.body as { status: { allowed: boolean } }).status.allowed).to.equal(true);
    const refused = await as('root-token', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user: 'eve', resourceAttributes: { group: GROUP, resource: 'things', verb: 'get', namespace: 'team' } },
    });
    expect((refused.body as { status: { allowed: boolean } }).status.allowed).to.equal(false);
  });

  it('refuses an APIService whose name is not version.group', async () => {
    const answer = await as('root-token', 'POST', APISERVICES, {
      metadata: { name: 'wrong' },
      spec: { group: GROUP, version: 'v2', groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    expect(answer.status).to.equal(422);
    expect((answer.body as { message: string }).message).to.equal(
      `APIService.apiregistration.k8s.io "wrong" is invalid: metadata.name: Invalid value: "wrong": must be \`spec.version+"."+spec.group\`: "v2.${GROUP}"`,
    );
  });

  it('marks a backend that stopped unavailable (FailedDiscoveryCheck) and answers 503', async () => {
    await echo.stop();
    // A change of the APIService makes kube-aggregator check it again at once.
    await as(
      'root-token',
      'PATCH',
      `${APISERVICES}/v1.${GROUP}`,
      { metadata: { labels: { checked: 'again' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    const condition = await eventually(available, (found) => found?.status === 'False', 'Available');
    expect(condition).to.include({ reason: 'FailedDiscoveryCheck' });
    expect(condition!.message, condition!.message).to.match(
      new RegExp(
        `^failing or missing response from https://localhost:${echo.port}/apis/${GROUP}/v1: Get .*dial tcp 127.0.0.1:${echo.port}: connect: connection refused$`,
      ),
    );
    const answer = await as('root-token', 'GET', PATH);
    expect(answer.status).to.equal(503);
    expect(answer.body).to.equal('service unavailable\n');
  });

  it('finds an unavailable backend again once it answers', async () => {
    await echo.start(echo.port);
    await eventually(available, (condition) => condition?.status === 'True', 'Available');
    expect((await as('root-token', 'GET', PATH)).status).to.equal(200);
  });
});
