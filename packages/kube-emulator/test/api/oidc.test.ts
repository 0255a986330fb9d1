import { AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { KubeEmulatorError, startKubeEmulator, type KubeEmulator } from '../../src/index.js';
import { call } from '../helpers/emulator.js';

const client = (emulator: KubeEmulator): KubeConfig => {
  const config = new KubeConfig();
  config.loadFromString(emulator.kubeConfig());
  return config;
};

describe("the issuer's settings: --service-account-issuer, --service-account-jwks-uri, --api-audiences, --service-account-max-token-expiration", function () {
  this.timeout(20_000);
  const started: KubeEmulator[] = [];
  const start = async (options: Parameters<typeof startKubeEmulator>[0]): Promise<KubeEmulator> => {
    const emulator = await startKubeEmulator(options);
    started.push(emulator);
    return emulator;
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((emulator) => emulator.stop()));
  });

  it('serves no OIDC discovery for an issuer that is not https, as kube-apiserver does', async () => {
    const emulator = await start({});
    expect(emulator.serviceAccountIssuer)
      .to.equal(emulator.url)
      .and.match(/^http:/);
    expect((await call(emulator, 'GET', '/.well-known/openid-configuration')).status).to.equal(404);
    expect((await call(emulator, 'GET', '/openid/v1/jwks')).status).to.equal(404);
  });

  it('issues and accepts tokens of the configured issuer, JWKS location and API audiences', async () => {
    const emulator = await start({
      serviceAccountIssuer: 'https://oidc.example.com/cluster-1',
      serviceAccountJwksUri: 'https://oidc.example.com/cluster-1/keys.json',
      apiAudiences: ['https://kubernetes.default.svc', 'api'],
    });
    expect((await call(emulator, 'GET', '/.well-known/openid-configuration')).body).to.include({
      issuer: 'https://oidc.example.com/cluster-1',
      jwks_uri: 'https://oidc.example.com/cluster-1/keys.json',
    });
    const core = client(emulator).makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'robot' } } });
    const answer = await core.createNamespacedServiceAccountToken({
      namespace: 'default',
      name: 'robot',
      body: { spec: { audiences: [] } },
    });
    expect(answer.spec.audiences).to.deep.equal(['https://kubernetes.default.svc', 'api']);
    const review = await client(emulator)
      .makeApiClient(AuthenticationV1Api)
      .createTokenReview({ body: { spec: { token: answer.status!.token, audiences: ['api'] } } });
    expect(review.status).to.deep.include({ authenticated: true, audiences: ['api'] });
  });

  it('shortens longer tokens to the maximum expiration, with a warning', async () => {
    const emulator = await start({ serviceAccountMaxTokenExpirationSeconds: 7200 });
    await call(emulator, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    const answer = await call(emulator, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      spec: { expirationSeconds: 86400 },
    });
    expect(answer.headers.get('warning')).to.equal(
      '299 - "requested expiration of 86400 seconds shortened to 7200 seconds"',
    );
    const { token } = (answer.body as { status: { token: string } }).status;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
      iat: number;
    };
    expect(claims.exp - claims.iat).to.equal(7200);
  });

  it('refuses settings kube-apiserver refuses, naming the setting', async () => {
    const refused = async (options: Parameters<typeof startKubeEmulator>[0], message: RegExp) => {
      const error: unknown = await startKubeEmulator(options).then(
        (emulator) => emulator.stop(),
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(KubeEmulatorError).with.property('message').that.matches(message);
      expect(error).to.have.property('code', 'ERR_KEYMASTER_KUBE_EMULATOR_USAGE');
    };
    await refused({ serviceAccountIssuer: 'https://bad host:/x' }, /service-account issuer "https:\/\/bad host:\/x"/);
    await refused({ serviceAccountJwksUri: 'http://insecure/keys' }, /JWKS URI "http:\/\/insecure\/keys".*https/);
    await refused({ serviceAccountMaxTokenExpirationSeconds: 600 }, /between 1 hour and 2\^32 seconds, not 600/);
    await refused({ apiAudiences: [''] }, /API audiences must not be empty/);
  });
});
