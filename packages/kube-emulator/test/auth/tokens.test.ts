import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTokenFile } from '../../src/auth/tokens.js';
import { KubeEmulatorError, startKubeEmulator } from '../../src/index.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { kubectl, kubectlBinary } from '../helpers/kubectl.js';

describe('bearer tokens from --token-auth-file', function () {
  this.timeout(15_000);
  let cluster: TestCluster;
  let folder: string;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-tokens-'));
    const file = join(folder, 'tokens.csv');
    writeFileSync(file, 'alice-token,alice,1001,"tenants,viewers"\nbob-token,bob,1002\n');
    cluster = await startTestCluster({ tokenAuthFile: file, token: 'alice-token', crds: undefined, tls: true });
  });
  after(() => cluster.stop());

  it('parses the kube-apiserver CSV format', () => {
    const users = parseTokenFile('t1,alice,1,"a,b"\n\n# comment\nt2,bob,2\n', 'tokens.csv');
    expect(users.get('t1')).to.deep.equal({ name: 'alice', uid: '1', groups: ['a', 'b', 'system:authenticated'] });
    expect(users.get('t2')?.groups).to.deep.equal(['system:authenticated']);
    expect(() => parseTokenFile('only-a-token\n', 'tokens.csv')).to.throw(KubeEmulatorError, 'tokens.csv line 1');
  });

  it('refuses unknown tokens (401), takes requests without one as system:anonymous, records the users', async () => {
    // As kube-apiserver with --anonymous-auth (its default) and AlwaysAllow: an anonymous request passes.
    expect((await call(cluster.emulator, 'GET', '/api/v1/namespaces')).status).to.equal(200);
    expect(cluster.emulator.stats.total({ verb: 'list', resource: 'namespaces', user: 'system:anonymous' })).to.equal(
      1,
    );
    expect(
      (await call(cluster.emulator, 'GET', '/api/v1/namespaces', undefined, { Authorization: 'Bearer wrong' })).status,
    ).to.equal(401);
    expect(
      (await call(cluster.emulator, 'GET', '/api/v1/namespaces', undefined, { Authorization: 'Bearer bob-token' }))
        .status,
    ).to.equal(200);
    // Over TLS (kubectl sends tokens over HTTPS only), with the kubeconfig trusting the emulator's certificate.
    const result = await kubectl(kubectlBinary(33), cluster.kubeconfig, ['get', 'configmaps', '-n', 'default']);
    expect(result.code, result.stderr).to.equal(0);
    await cluster.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });
    expect(cluster.emulator.stats.total({ verb: 'list', resource: 'namespaces', user: 'bob' })).to.equal(1);
    expect(cluster.emulator.stats.total({ verb: 'list', resource: 'configmaps', user: 'alice' })).to.equal(2);
  });

  it('answers requests without a token 401 with anonymousAuth off', async () => {
    const strict = await startKubeEmulator({ tokenAuthFile: join(folder, 'tokens.csv'), anonymousAuth: false });
    try {
      const anonymous = await call(strict, 'GET', '/api/v1/namespaces');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body).to.include({ kind: 'Status', reason: 'Unauthorized' });
    } finally {
      await strict.stop();
    }
  });

  it('fails to start with a clear error when the file is missing', async () => {
    try {
      await startKubeEmulator({ tokenAuthFile: join(folder, 'missing.csv') });
      expect.fail('expected an error');
    } catch (error) {
      expect(error).to.be.instanceOf(KubeEmulatorError);
      expect((error as KubeEmulatorError).code).to.equal('ERR_KEYMASTER_KUBE_EMULATOR_TOKEN_FILE');
    }
  });
});
