import {
  ApiException,
  ApiextensionsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  VersionApi,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCrdFolder } from '@keymaster/kube-emulator';
import { ADMIN_USER, startRealKube, type RealKube } from '../../src/index.js';
import { getJson } from './helpers/https.js';
import { kubectl } from './helpers/kubectl.js';
import { eventually, isAlive } from './helpers/processes.js';

const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));
const TENANT = { token: randomBytes(16).toString('hex'), user: 'alice', uid: 'alice-uid', groups: ['tenant-a-admins'] };

function client(kube: RealKube, token?: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(kube.kubeConfig(token === undefined ? {} : { token }));
  return config;
}

/** The HTTP status of a failed client-node call (fails the test if the call succeeds). */
async function statusOf(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    // client-node gives the Status as JSON text, and no body for a 401.
    const body = typeof error.body === 'string' ? (JSON.parse(error.body) as { message: string }) : undefined;
    return { code: error.code, message: body?.message ?? '' };
  }
  throw new Error('the call succeeded');
}

function jwtPart(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('a real kube-apiserver + etcd (startRealKube)', function () {
  let kube: RealKube;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'testenv-real-'));
    kube = await startRealKube({ crds: CRDS, tokens: [TENANT], namespaces: ['keymaster-system', 'tenant-a'] });
  });
  after(async () => {
    await (kube as RealKube | undefined)?.stop(); // undefined when it could not start
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the pinned kube-apiserver to @kubernetes/client-node, with the namespaces and CRDs asked for', async () => {
    const admin = client(kube);
    const version = await admin.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).to.equal(`v${kube.versions.kube}`);
    const namespaces = (await admin.makeApiClient(CoreV1Api).listNamespace()).items.map((ns) => ns.metadata?.name);
    expect(namespaces).to.include.members(['default', 'kube-system', 'keymaster-system', 'tenant-a']);
    const crds = (await admin.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items;
    expect(crds.map((crd) => crd.metadata?.name).sort()).to.deep.equal(
      readCrdFolder(CRDS)
        .map(({ crd }) => (crd.metadata as { name: string }).name)
        .sort(),
    );
    for (const crd of crds) {
      expect(crd.status?.conditions?.find(({ type }) => type === 'Established')?.status).to.equal('True');
    }
    const clusters = (await admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: 'infrastructure.keymaster.dev',
      version: 'v1beta1',
      namespace: 'tenant-a',
      plural: 'awsclusters',
    })) as { items: unknown[] };
    expect(clusters.items).to.deep.equal([]);
  });

  it('answers kubectl of its minor through the kubeconfig it writes, as the admin', async () => {
    const kubeconfig = join(dir, 'admin.yaml');
    await kube.writeKubeConfig(kubeconfig);
    const whoami = await kubectl(kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami).to.include({ stdout: ADMIN_USER, code: 0 });
    const namespace = await kubectl(kubeconfig, ['get', 'namespace', 'keymaster-system', '-o', 'name']);
    expect(namespace).to.include({ stdout: 'namespace/keymaster-system\n', code: 0 });
  });

  it('refuses a tenant what RBAC does not grant (a real 403) and allows what a RoleBinding grants', async () => {
    const tenant = client(kube, TENANT.token).makeApiClient(CoreV1Api);
    const refused = await statusOf(tenant.listNamespacedSecret({ namespace: 'tenant-a' }));
    expect(refused.code).to.equal(403);
    expect(refused.message).to.equal(
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "tenant-a"',
    );
    const rbac = client(kube).makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'tenant-a',
      body: {
        metadata: { name: 'configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'tenant-a',
      body: {
        metadata: { name: 'tenant-a-admins' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'tenant-a-admins' }],
      },
    });
    await eventually(() =>
      tenant.createNamespacedConfigMap({ namespace: 'tenant-a', body: { metadata: { name: 'mine' } } }),
    );
    const elsewhere = await statusOf(
      tenant.createNamespacedConfigMap({ namespace: 'keymaster-system', body: { metadata: { name: 'theirs' } } }),
    );
    expect(elsewhere.code).to.equal(403);
    const kubeconfig = join(dir, 'tenant.yaml');
    await kube.writeKubeConfig(kubeconfig, { token: TENANT.token, namespace: 'tenant-a' });
    const secrets = await kubectl(kubeconfig, ['get', 'secrets']);
    expect(secrets.code).to.equal(1);
    expect(secrets.stderr).to.contain('Error from server (Forbidden): secrets is forbidden: User "alice"');
    expect(await kubectl(kubeconfig, ['get', 'configmap', 'mine', '-o', 'name'])).to.include({
      stdout: 'configmap/mine\n',
      code: 0,
    });
  });

  it('issues service-account tokens (TokenRequest) signed with a key its OIDC discovery publishes', async () => {
    const core = client(kube).makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({
      namespace: 'keymaster-system',
      body: { metadata: { name: 'keymaster' } },
    });
    const request = await core.createNamespacedServiceAccountToken({
      name: 'keymaster',
      namespace: 'keymaster-system',
      body: { spec: { audiences: ['sts.amazonaws.com'], expirationSeconds: 3600 } },
    });
    const token = request.status!.token;

    const discovery = await getJson(kube, '/.well-known/openid-configuration', kube.adminToken);
    expect(discovery.status).to.equal(200);
    expect(discovery.body).to.include({ issuer: kube.issuer, jwks_uri: `${kube.issuer}/openid/v1/jwks` });
    expect(
      (discovery.body as { id_token_signing_alg_values_supported: string[] }).id_token_signing_alg_values_supported,
    ).to.deep.equal(['RS256']);
    const jwks = await getJson(kube, '/openid/v1/jwks', kube.adminToken);
    const header = jwtPart(token, 0);
    const key = (jwks.body as { keys: (JsonWebKey & { kid: string })[] }).keys.find(({ kid }) => kid === header.kid);
    expect(key, 'the token is signed with a key in the JWKS').not.to.equal(undefined);
    const [head, payload, signature] = token.split('.') as [string, string, string];
    expect(header.alg).to.equal('RS256');
    expect(
      verify(
        'RSA-SHA256',
        Buffer.from(`${head}.${payload}`),
        createPublicKey({ key: key!, format: 'jwk' }),
        Buffer.from(signature, 'base64url'),
      ),
    ).to.equal(true);
    const claims = jwtPart(token, 1);
    expect(claims).to.include({ iss: kube.issuer, sub: 'system:serviceaccount:keymaster-system:keymaster' });
    expect(claims.aud).to.deep.equal(['sts.amazonaws.com']);
    expect(Number(claims.exp) - Number(claims.iat)).to.equal(3600);
  });

  it("authenticates a service account's token for its own audience, under the account's (empty) RBAC", async () => {
    const core = client(kube).makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: 'tenant-a', body: { metadata: { name: 'robot' } } });
    const tokenFor = async (audiences?: string[]): Promise<string> =>
      (
        await core.createNamespacedServiceAccountToken({
          name: 'robot',
          namespace: 'tenant-a',
          body: { spec: { audiences: audiences ?? [] } }, // none: the API server's own
        })
      ).status!.token;
    const robot = client(kube, await tokenFor());
    const review = await robot.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).to.equal('system:serviceaccount:tenant-a:robot');
    expect(review.status?.userInfo?.groups).to.include('system:serviceaccounts:tenant-a');
    const refused = await statusOf(robot.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'tenant-a' }));
    expect(refused).to.deep.equal({
      code: 403,
      message:
        'secrets is forbidden: User "system:serviceaccount:tenant-a:robot" cannot list resource "secrets" in API group "" in the namespace "tenant-a"',
    });
    const foreign = client(kube, await tokenFor(['sts.amazonaws.com']));
    expect(
      (await statusOf(foreign.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} }))).code,
    ).to.equal(401);
  });
});

describe('stopping a real kube-apiserver + etcd', function () {
  it('ends both processes and removes the temporary folder; the tokenAuthFile users authenticate until then', async () => {
    const tokens = join(await mkdtemp(join(tmpdir(), 'testenv-tokens-')), 'tokens.csv');
    await writeFile(tokens, 'bob-token,bob,bob-uid,"team-b,viewers"');
    const kube = await startRealKube({ tokenAuthFile: tokens });
    try {
      const review = await client(kube, 'bob-token')
        .makeApiClient(AuthenticationV1Api)
        .createSelfSubjectReview({ body: {} });
      expect(review.status?.userInfo).to.deep.include({ username: 'bob', uid: 'bob-uid' });
      expect(review.status?.userInfo?.groups).to.include.members(['team-b', 'viewers', 'system:authenticated']);
      expect(isAlive(kube.pids.etcd) && isAlive(kube.pids.kubeApiserver)).to.equal(true);
      expect(existsSync(kube.dir)).to.equal(true);
    } finally {
      await kube.stop();
      await rm(tokens, { force: true });
    }
    expect(isAlive(-kube.pids.kubeApiserver), 'kube-apiserver').to.equal(false);
    expect(isAlive(-kube.pids.etcd), 'etcd').to.equal(false);
    expect(existsSync(kube.dir)).to.equal(false);
    await kube.stop(); // a second stop is harmless
  });
});
