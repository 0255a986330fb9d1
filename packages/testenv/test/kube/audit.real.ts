import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRealKube, type RealKube } from '../../src/index.js';

const TENANT = { token: randomBytes(16).toString('hex'), user: 'alice', uid: 'alice-uid' };

interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code: number };
}

describe('startRealKube({ audit: true })', function () {
  let kube: RealKube;

  before(async () => {
    kube = await startRealKube({ audit: true, tokens: [TENANT] });
  });
  after(() => kube.stop());

  it('logs each request once answered: user, verb, resource and code, no bodies', async () => {
    const core = (token?: string) => {
      const config = new KubeConfig();
      config.loadFromString(kube.kubeConfig(token === undefined ? {} : { token }));
      return config.makeApiClient(CoreV1Api);
    };
    await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'audited' }, data: { secret: 'not-in-the-log' } },
    });
    const refused = await core(TENANT.token)
      .listNamespace()
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ApiException).and.to.have.property('code', 403);

    // An event is written as its answer goes out: the client may read the answer a moment earlier.
    let text = '';
    for (let tries = 0; !text.includes('"username":"alice"') && tries < 100; tries++) {
      text = await readFile(kube.auditLog!, 'utf8');
      await sleep(50);
    }
    const events = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEvent);
    const created = events.filter(({ objectRef }) => objectRef?.name === 'audited');
    expect(
      created.map(({ stage, verb, objectRef, responseStatus }) => ({
        stage,
        verb,
        objectRef,
        code: responseStatus?.code,
      })),
    ).to.deep.equal([
      {
        stage: 'ResponseComplete',
        verb: 'create',
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' },
        code: 201,
      },
    ]);
    expect(text).not.to.include('not-in-the-log');
    const byAlice = events.filter(({ user }) => user.username === 'alice');
    expect(
      byAlice.map(({ verb, objectRef, responseStatus }) => [verb, objectRef?.resource, responseStatus?.code]),
    ).to.deep.include(['list', 'namespaces', 403]);
    expect(new Set(events.map(({ stage }) => stage))).not.to.include('RequestReceived');
  });
});
