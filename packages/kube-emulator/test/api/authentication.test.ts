import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  AuthenticationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1TokenRequestSpec,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, call, type TestCluster } from '../helpers/emulator.js';
import { failure } from '../helpers/failure.js';
import { kubectl, kubectlBinary } from '../helpers/kubectl.js';

const TOKENS = `root-token,root,root-uid,system:masters
alice-token,alice,alice-uid,tenants
`;

/** The HTTP code of a call that must fail (client-node gives no body with a 401). */
async function codeOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

describe('service-account tokens: TokenRequest, TokenReview, SelfSubjectReview (over HTTPS, RBAC on)', function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  const as = (token: string): KubeConfig => {
    const config = new KubeConfig();
    config.loadFromString(cluster.emulator.kubeConfig({ token }));
    return config;
  };
  const root = (): CoreV1Api => as('root-token').makeApiClient(CoreV1Api);
  // client-node's type asks for audiences; none (an empty list) means the API server's own.
  const tokenFor = async (name: string, spec: Partial<V1TokenRequestSpec> = {}): Promise<string> => {
    const requested: V1TokenRequestSpec = { audiences: [], ...spec };
    const answer = await root().createNamespacedServiceAccountToken({
      namespace: 'apps',
      name,
      body: { spec: requested },
    });
    return answer.status!.token;
  };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-sa-tokens-'));
    writeFileSync(join(folder, 'tokens.csv'), TOKENS);
    cluster = await startTestCluster({
      tokenAuthFile: join(folder, 'tokens.csv'),
      token: 'root-token',
      authorization: 'RBAC',
      tls: true,
      crds: undefined,
    });
    await root().createNamespace({ body: { metadata: { name: 'apps' } } });
    await root().createNamespacedServiceAccount({ namespace: 'apps', body: { metadata: { name: 'robot' } } });
  });
  after(async () => {
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('issues an RS256 JWT with the claims kube-apiserver issues, signed by the key the JWKS publishes', async () => {
    const account = await root().readNamespacedServiceAccount({ namespace: 'apps', name: 'robot' });
    const answer = await root().createNamespacedServiceAccountToken({
      namespace: 'apps',
      name: 'robot',
      body: { spec: { audiences: ['sts.amazonaws.com'], expirationSeconds: 7200 } },
    });
    const { issuer } = (
      await call(cluster.emulator, 'GET', '/.well-known/openid-configuration', undefined, {
        authorization: 'Bearer root-token',
      })
    ).body as { issuer: string };
    expect(issuer).to.equal(cluster.emulator.url).and.to.equal(cluster.emulator.serviceAccountIssuer);
    const token = answer.status!.token;
    const claims = claimsOf(token);
    expect(claims).to.include({ iss: issuer, sub: 'system:serviceaccount:apps:robot' });
    expect(claims.aud).to.deep.equal(['sts.amazonaws.com']);
    expect(claims['kubernetes.io']).to.deep.equal({
      namespace: 'apps',
      serviceaccount: { name: 'robot', uid: account.metadata!.uid },
    });
    expect([Number(claims.exp) - Number(claims.iat), claims.nbf]).to.deep.equal([7200, claims.iat]);
    expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
    expect(answer.spec.expirationSeconds).to.equal(7200);
    expect(answer.status!.expirationTimestamp.getTime() / 1000).to.equal(Number(claims.exp));

    const jwks = (await call(cluster.emulator, 'GET', '/openid/v1/jwks', undefined, {
      authorization: 'Bearer root-token',
    })) as { body: { keys: (JsonWebKey & { kid: string; alg: string; use: string })[] }; headers: Headers };
    expect(jwks.headers.get('content-type')).to.equal('application/jwk-set+json');
    const [key] = jwks.body.keys;
    const [head, payload, signature] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(head, 'base64url').toString())).to.deep.equal({ alg: 'RS256', kid: key!.kid });
    expect(key).to.include({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const publicKey = createPublicKey({ key: key!, format: 'jwk' });
    expect(
      verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), publicKey, Buffer.from(signature, 'base64url')),
    ).to.equal(true);
  });

  it("answers with the ServiceAccount's UID, and refuses a request naming another (1.34 on)", async () => {
    const account = await root().readNamespacedServiceAccount({ namespace: 'apps', name: 'robot' });
    const answer = await root().createNamespacedServiceAccountToken({
      namespace: 'apps',
      name: 'robot',
      body: { spec: { audiences: [] } },
    });
    expect(answer.metadata?.uid).to.equal(account.metadata!.uid);
    const named = await root().createNamespacedServiceAccountToken({
      namespace: 'apps',
      name: 'robot',
      body: { metadata: { uid: account.metadata!.uid }, spec: { audiences: [] } },
    });
    expect(named.status?.token).to.be.a('string');
    const other = '00000000-0000-0000-0000-000000000000';
    const refused = await failure(
      root().createNamespacedServiceAccountToken({
        namespace: 'apps',
        name: 'robot',
        body: { metadata: { uid: other }, spec: { audiences: [] } },
      }),
    );
    expect([refused.code, refused.status.message]).to.deep.equal([
      409,
      `Operation cannot be fulfilled on TokenRequest.authentication.k8s.io "robot": the UID in the token request (${other}) does not match the UID of the service account (${account.metadata!.uid})`,
    ]);
  });

  it('defaults to the API audience and one hour, and refuses less than 10 minutes', async () => {
    const claims = claimsOf(await tokenFor('robot'));
    expect(claims.aud).to.deep.equal([cluster.emulator.url]);
    expect(Number(claims.exp) - Number(claims.iat)).to.equal(3600);
    const refused = await failure(tokenFor('robot', { expirationSeconds: 599 }));
    expect(refused.code).to.equal(422);
    expect(refused.status.message).to.equal(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    );
  });

  it('needs the ServiceAccount, and binds to an existing Secret of its namespace', async () => {
    const missing = await failure(tokenFor('ghost'));
    expect([missing.code, missing.status.message]).to.deep.equal([404, 'serviceaccounts "ghost" not found']);
    const secret = await root().createNamespacedSecret({ namespace: 'apps', body: { metadata: { name: 'bound' } } });
    const bound = claimsOf(
      await tokenFor('robot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'bound' } }),
    );
    expect(bound['kubernetes.io']).to.have.deep.property('secret', { name: 'bound', uid: secret.metadata!.uid });
    const pod = await failure(tokenFor('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } }));
    expect([pod.code, pod.status.message]).to.deep.equal([404, 'pods "web" not found']);
  });

  it('authenticates requests with its tokens as the ServiceAccount, for the API audience only', async () => {
    const robot = as(await tokenFor('robot'));
    const review = await robot.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status!.userInfo).to.deep.include({
      username: 'system:serviceaccount:apps:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
    });
    const refused = await failure(robot.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'apps' }));
    expect(refused.status.message).to.equal(
      'secrets is forbidden: User "system:serviceaccount:apps:robot" cannot list resource "secrets" in API group "" in the namespace "apps"',
    );
    const sts = as(await tokenFor('robot', { audiences: ['sts.amazonaws.com'] }));
    expect(await codeOf(sts.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'apps' }))).to.equal(401);
  });

  it('reviews tokens: the user and audiences, or why not', async () => {
    const authentication = as('root-token').makeApiClient(AuthenticationV1Api);
    const token = await tokenFor('robot', { audiences: ['sts.amazonaws.com'] });
    const valid = await authentication.createTokenReview({
      body: { spec: { token, audiences: ['sts.amazonaws.com'] } },
    });
    expect(valid.status).to.deep.include({ authenticated: true, audiences: ['sts.amazonaws.com'] });
    expect(valid.status!.user!.username).to.equal('system:serviceaccount:apps:robot');
    const elsewhere = await authentication.createTokenReview({ body: { spec: { token } } });
    expect(elsewhere.status).to.deep.equal({
      user: {},
      error: `[invalid bearer token, token audiences ["sts.amazonaws.com"] is invalid for the target audiences ["${cluster.emulator.url}"]]`,
    });
    const tampered = await authentication.createTokenReview({ body: { spec: { token: `${token.slice(0, -4)}AAAA` } } });
    expect(tampered.status!.error).to.equal(
      '[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]',
    );
    const file = await authentication.createTokenReview({ body: { spec: { token: 'alice-token' } } });
    expect(file.status!.user).to.deep.equal({
      username: 'alice',
      uid: 'alice-uid',
      groups: ['tenants', 'system:authenticated'],
    });
  });

  it('stops authenticating a token when its ServiceAccount is re-created', async () => {
    await root().createNamespacedServiceAccount({ namespace: 'apps', body: { metadata: { name: 'temporary' } } });
    const token = await tokenFor('temporary');
    await root().deleteNamespacedServiceAccount({ namespace: 'apps', name: 'temporary' });
    const gone = await as('root-token')
      .makeApiClient(AuthenticationV1Api)
      .createTokenReview({ body: { spec: { token } } });
    expect(gone.status!.error).to.equal('[invalid bearer token, serviceaccounts "temporary" not found]');
    await root().createNamespacedServiceAccount({ namespace: 'apps', body: { metadata: { name: 'temporary' } } });
    expect(await codeOf(as(token).makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'apps' }))).to.equal(401);
  });

  it('lets only a grant of create on serviceaccounts/token ask for tokens', async () => {
    const alice = as('alice-token').makeApiClient(CoreV1Api);
    const request = () =>
      alice.createNamespacedServiceAccountToken({
        namespace: 'apps',
        name: 'robot',
        body: { spec: { audiences: [] } },
      });
    const refused = await failure(request());
    expect(refused.status.message).to.equal(
      'serviceaccounts "robot" is forbidden: User "alice" cannot create resource "serviceaccounts/token" in API group "" in the namespace "apps"',
    );
    const rbac = as('root-token').makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'apps',
      body: {
        metadata: { name: 'token-creator' },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'apps',
      body: {
        metadata: { name: 'alice-creates-tokens' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'token-creator' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
    });
    expect(claimsOf((await request()).status!.token).sub).to.equal('system:serviceaccount:apps:robot');
    expect((await failure(alice.readNamespacedServiceAccount({ namespace: 'apps', name: 'robot' }))).code).to.equal(
      403,
    );
  });

  it('serves the OIDC documents to service accounts, and to others only through nonResourceURLs grants', async () => {
    const get = (token: string) =>
      call(cluster.emulator, 'GET', '/.well-known/openid-configuration', undefined, {
        authorization: `Bearer ${token}`,
      });
    const asRobot = await get(await tokenFor('robot'));
    expect(asRobot.status).to.equal(200);
    expect(asRobot.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(asRobot.body).to.deep.equal({
      issuer: cluster.emulator.url,
      jwks_uri: `${cluster.emulator.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const asAlice = await get('alice-token');
    expect([asAlice.status, (asAlice.body as { message: string }).message]).to.deep.equal([
      403,
      'forbidden: User "alice" cannot get path "/.well-known/openid-configuration"',
    ]);
    const rbac = as('root-token').makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: { metadata: { name: 'issuer-reader' }, rules: [{ nonResourceURLs: ['/.well-known/*'], verbs: ['get'] }] },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'tenants-read-issuer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'issuer-reader' },
        subjects: [{ kind: 'Group', name: 'tenants' }],
      },
    });
    expect((await get('alice-token')).status).to.equal(200);
  });

  it('works with kubectl 1.33: create token with an audience and a duration, auth whoami with the token', async () => {
    const made = await kubectl(kubectlBinary(33), cluster.kubeconfig, [
      'create',
      'token',
      'robot',
      '-n',
      'apps',
      '--audience',
      'sts.amazonaws.com',
      '--duration',
      '1h',
    ]);
    expect(made.stderr).to.equal('');
    const claims = claimsOf(made.stdout.trim());
    expect(claims).to.include({ sub: 'system:serviceaccount:apps:robot' });
    expect([claims.aud, Number(claims.exp) - Number(claims.iat)]).to.deep.equal([['sts.amazonaws.com'], 3600]);
    const short = await kubectl(kubectlBinary(33), cluster.kubeconfig, [
      'create',
      'token',
      'robot',
      '-n',
      'apps',
      '--duration',
      '5m',
    ]);
    expect([short.code, short.stderr.trim()]).to.deep.equal([
      1,
      'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
    ]);
    const config = join(folder, 'robot.kubeconfig');
    writeFileSync(config, cluster.emulator.kubeConfig({ token: await tokenFor('robot') }));
    const whoami = await kubectl(kubectlBinary(33), config, [
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username}',
    ]);
    expect(whoami.stdout).to.equal('system:serviceaccount:apps:robot');
  });
});
