import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_USER, aggregatedApiObjects, writeServingCertificate } from '../../../src/index.js';
import { eventually } from '../../kube/helpers/processes.js';
import { AggregatedServer } from './aggregated-server.js';
import { send, type HttpAnswer, type Target } from './http.js';
import { startServers, TENANT, type Servers } from './servers.js';

const GROUP = 'echo.fidelity.keymaster.dev';
const NAMESPACE = 'fid-aggregation';
const SERVICE = 'echo';
const APISERVICE = `/apis/apiregistration.k8s.io/v1/apiservices/v1.${GROUP}`;
const THING = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/things/one`;
const AUTHENTICATION = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe('fidelity: aggregated API servers behind an APIService, on both backends (test/fidelity/kube)', function () {
  this.timeout(240_000);
  let servers: Servers;
  let backend: AggregatedServer;
  let dir: string;
  const targets = (): Target[] => [servers.emulator, servers.real];
  const call = (
    target: Target,
    who: 'admin' | 'tenant',
    request: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> => {
    const [method, path] = request.split(' ') as [string, string];
    const text = body === undefined ? undefined : JSON.stringify(body);
    return send(target, {
      method,
      path,
      token: servers.tokens[who],
      headers: { ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: text,
    });
  };
  const json = (answer: HttpAnswer): Record<string, unknown> => JSON.parse(answer.text) as Record<string, unknown>;
  const available = async (target: Target): Promise<Condition | undefined> => {
    const status = json(await call(target, 'admin', `GET ${APISERVICE}`)).status as
      { conditions?: Condition[] } | undefined;
    return status?.conditions?.find((condition) => condition.type === 'Available');
  };
  /** Waits (on the condition, up to 90 s: kube-aggregator re-checks on changes and every 30 s) for Available. */
  const until = async (target: Target, status: string): Promise<Condition> => {
    return eventually(async () => {
      const condition = await available(target);
      expect(condition?.status, `${target.name}: Available is ${JSON.stringify(condition)}`).to.equal(status);
      return condition!;
    }, 90_000);
  };
  /** Each target's answer to the same request. */
  const both = (request: (target: Target) => Promise<HttpAnswer>): Promise<HttpAnswer[]> =>
    Promise.all(targets().map(request));

  before(async () => {
    servers = await startServers();
    dir = await mkdtemp(join(tmpdir(), 'keymaster-fidelity-aggregation-'));
    await writeServingCertificate(dir, 'fidelity-aggregated-ca', [`${SERVICE}.${NAMESPACE}.svc`]);
    const [cert, key, ca] = await Promise.all(
      ['tls.crt', 'tls.key', 'ca.crt'].map((name) => readFile(join(dir, name), 'utf8')),
    );
    // The aggregated server trusts what each backend publishes, as one deployed on it would.
    const published = (await both((target) => call(target, 'admin', `GET ${AUTHENTICATION}`))).map(
      (answer) => json(answer).data as Record<string, string>,
    );
    backend = new AggregatedServer(
      `${GROUP}/v1`,
      { cert: cert!, key: key! },
      published.map((data) => data['requestheader-client-ca-file']!),
      [...new Set(published.flatMap((data) => JSON.parse(data['requestheader-allowed-names']!) as string[]))],
    );
    await backend.start();
    const [service, apiService] = aggregatedApiObjects({
      group: GROUP,
      version: 'v1',
      namespace: NAMESPACE,
      service: SERVICE,
      port: backend.port,
      ca: ca!,
    });
    for (const target of targets()) {
      await call(target, 'admin', 'POST /api/v1/namespaces', { metadata: { name: NAMESPACE } });
      await call(target, 'admin', `POST /api/v1/namespaces/${NAMESPACE}/services`, service);
      const created = await call(target, 'admin', 'POST /apis/apiregistration.k8s.io/v1/apiservices', apiService);
      expect(created.status, `${target.name}: ${created.text}`).to.equal(201);
    }
    await Promise.all(targets().map((target) => until(target, 'True')));
  });
  after(async () => {
    await backend.stop();
    await servers.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('publishes the same extension-apiserver-authentication keys', async () => {
    const [emulator, real] = await both((target) => call(target, 'admin', `GET ${AUTHENTICATION}`));
    const data = (answer: HttpAnswer) => json(answer).data as Record<string, string>;
    // The emulator authenticates no client certificates: kube-apiserver's client-ca-file is its only extra key.
    const realKeys = Object.keys(data(real!)).filter((key) => key !== 'client-ca-file');
    expect(Object.keys(data(emulator!)).sort()).to.deep.equal(realKeys.sort());
    for (const key of realKeys.filter((name) => name !== 'requestheader-client-ca-file')) {
      expect(data(emulator!)[key], key).to.equal(data(real!)[key]);
    }
  });

  it('marks the APIService Available as kube-aggregator does', async () => {
    const [emulator, real] = await Promise.all(targets().map(available));
    expect(emulator).to.include({ reason: real!.reason, message: real!.message });
  });

  it('sends an allowed user and its groups to the aggregated server, never its token', async () => {
    const [emulator, real] = await both((target) => call(target, 'admin', `GET ${THING}`));
    expect(real!.status).to.equal(200);
    expect(json(real!)).to.deep.include({
      path: THING,
      user: ADMIN_USER,
      groups: ['system:masters', 'system:authenticated'],
      authorization: false,
    });
    expect(emulator!.status).to.equal(200);
    expect(json(emulator!)).to.deep.equal(json(real!));
  });

  it("refuses a user without RBAC with the API server's 403 and never calls the aggregated server", async () => {
    const before = backend.calls.length;
    const [emulator, real] = await both((target) => call(target, 'tenant', `GET ${THING}`));
    expect(real!.status).to.equal(403);
    expect(emulator!.status).to.equal(403);
    expect(json(emulator!)).to.deep.equal(json(real!));
    expect(backend.calls).to.have.length(before);
  });

  it('passes on the user RBAC allowed, not the X-Remote-* headers the caller forged', async () => {
    for (const target of targets()) {
      await call(target, 'admin', `POST /apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/roles`, {
        metadata: { name: 'things' },
        rules: [{ apiGroups: [GROUP], resources: ['things'], verbs: ['get'] }],
      });
      await call(target, 'admin', `POST /apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`, {
        metadata: { name: 'tenant-things' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'things' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TENANT.user }],
      });
    }
    const forged = { 'X-Remote-User': ADMIN_USER, 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scope': 'all' };
    // RBAC's caches (kube-apiserver's informers) take a moment to see the new binding.
    const answers = await both((target) =>
      eventually(async () => {
        const answer = await call(target, 'tenant', `GET ${THING}`, undefined, forged);
        expect(answer.status, `${target.name}: ${answer.text}`).to.not.equal(403);
        return answer;
      }, 30_000),
    );
    for (const answer of answers) {
      expect(answer.status).to.equal(200);
      expect(json(answer)).to.deep.include({
        user: TENANT.user,
        groups: ['fidelity-tenants', 'system:authenticated'],
        extras: [],
        authorization: false,
      });
    }
    expect(json(answers[0]!)).to.deep.equal(json(answers[1]!));
  });

  it("passes on a service account's groups and extras (X-Remote-Extra-<escaped key>)", async () => {
    const answers = await both(async (target) => {
      await call(target, 'admin', `POST /api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
        metadata: { name: 'robot' },
      });
      await call(target, 'admin', `POST /apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`, {
        metadata: { name: 'robot-things' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'things' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: NAMESPACE }],
      });
      const issued = await call(target, 'admin', `POST /api/v1/namespaces/${NAMESPACE}/serviceaccounts/robot/token`, {
        spec: {},
      });
      const token = (json(issued).status as { token: string }).token;
      return eventually(async () => {
        const answer = await send(target, { method: 'GET', path: THING, token, headers: {}, body: undefined });
        expect(answer.status, `${target.name}: ${answer.text}`).to.not.equal(403);
        return answer;
      }, 30_000);
    });
    const echoed = answers.map((answer) => {
      expect(answer.status, answer.text).to.equal(200);
      // The uid is each server's own ServiceAccount's.
      const { uid, ...rest } = json(answer);
      expect(uid).to.be.a('string');
      return rest;
    });
    expect(echoed[1]).to.deep.include({
      user: `system:serviceaccount:${NAMESPACE}:robot`,
      extras: ['x-remote-extra-authentication.kubernetes.io%2fcredential-id'],
    });
    expect(echoed[0]).to.deep.equal(echoed[1]);
  });

  it('lists the aggregated group in discovery as kube-aggregator does', async () => {
    const [emulatorGroups, realGroups] = await both((target) => call(target, 'admin', 'GET /apis'));
    const named = (answer: HttpAnswer) =>
      (json(answer).groups as { name: string }[]).find(({ name }) => name === GROUP);
    expect(named(realGroups!)).to.not.equal(undefined);
    expect(named(emulatorGroups!)).to.deep.equal(named(realGroups!));
    const [emulatorGroup, realGroup] = await both((target) => call(target, 'admin', `GET /apis/${GROUP}`));
    expect(json(emulatorGroup!)).to.deep.equal(json(realGroup!));
    // kube-aggregator fetches its servers' discovery in the background: wait until it has this one's.
    const accept = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
    const discovered = (target: Target): Promise<unknown> =>
      eventually(async () => {
        const items = json(await call(target, 'admin', 'GET /apis', undefined, accept)).items as {
          metadata: { name: string };
          versions: { resources: unknown[] }[];
        }[];
        const item = items.find(({ metadata }) => metadata.name === GROUP);
        expect(item?.versions[0]?.resources, `${target.name}: ${GROUP} in aggregated discovery`).to.not.be.empty;
        return item;
      }, 90_000);
    const [emulator, real] = await Promise.all(targets().map(discovered));
    expect(emulator).to.deep.equal(real);
  });

  it('marks a stopped aggregated server unavailable (FailedDiscoveryCheck) and answers 503', async () => {
    await backend.stop();
    // A change of the APIService has kube-aggregator check it again now rather than at its 30 s resync.
    await both((target) =>
      call(
        target,
        'admin',
        `PATCH ${APISERVICE}`,
        { metadata: { labels: { recheck: 'now' } } },
        {
          'content-type': 'application/merge-patch+json',
        },
      ),
    );
    const [emulator, real] = await Promise.all(targets().map((target) => until(target, 'False')));
    expect(real!.reason).to.equal('FailedDiscoveryCheck');
    expect(emulator!.reason).to.equal('FailedDiscoveryCheck');
    expect(real!.message).to.match(/^failing or missing response from https:\/\/localhost:/);
    expect(emulator!.message).to.equal(real!.message);
    const answers = await both((target) => call(target, 'admin', `GET ${THING}`));
    for (const answer of answers) {
      expect(answer.status).to.equal(503);
      expect(answer.text).to.equal('service unavailable\n');
    }
  });
});
