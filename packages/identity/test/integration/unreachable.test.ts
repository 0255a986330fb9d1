import { createServer, type AddressInfo } from 'node:net';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { expect } from 'chai';
import {
  AwsCredentialError,
  AwsUnreachableError,
  ControllerCredentialsError,
  IdentityResolver,
  isNetworkFailure,
} from '../../src/index.js';
import { Platform } from './harness.js';
import { world } from './world.js';

/** A local port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const STATIC = { namespace: 'tenant-a', identityRef: { kind: 'AWSClusterStaticIdentity' as const, name: 'tenant-a' } };
const CONTROLLER = { namespace: 'tenant-c', identityRef: undefined };

async function failure(resolver: IdentityResolver, request: typeof STATIC | typeof CONTROLLER): Promise<Error> {
  try {
    await resolver.resolve({ ...request, region: 'us-west-2' });
  } catch (error) {
    return error as Error;
  }
  return expect.fail('expected the resolve to fail');
}

/** Runs `body` with an environment where the SDK's default chain finds nothing (no keys, profile, token, metadata). */
async function withoutAwsEnvironment<T>(body: () => Promise<T>): Promise<T> {
  const saved = process.env;
  process.env = {
    ...Object.fromEntries(Object.entries(saved).filter(([name]) => !name.startsWith('AWS_'))),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keymaster-test/credentials',
    AWS_CONFIG_FILE: '/nonexistent/keymaster-test/config',
  };
  try {
    return await body();
  } finally {
    process.env = saved;
  }
}

describe('AWS unreachable versus credentials refused (the real SDK)', function () {
  this.timeout(60_000);

  it('a closed STS port: AwsUnreachableError naming the endpoint and what to check, never "check the keys"', async () => {
    const port = await closedPort();
    const resolver = new IdentityResolver({
      store: new Platform(),
      controllerNamespace: 'keymaster-system',
      aws: { endpoint: `http://127.0.0.1:${port}`, stsRegion: 'us-east-1' },
    });
    const error = await failure(resolver, STATIC);
    expect(error).to.be.instanceOf(AwsUnreachableError);
    expect(error).to.include({ code: 'ERR_KEYMASTER_AWS_UNREACHABLE', endpoint: `127.0.0.1:${port}` });
    expect(error.message).to.match(
      new RegExp(
        `^sts:GetCallerIdentity for AWSClusterStaticIdentity/tenant-a failed: AWS endpoint 127\\.0\\.0\\.1:${port} unreachable: .*ECONNREFUSED`,
      ),
    );
    expect((error as AwsUnreachableError).hint)
      .to.include('egress')
      .and.include('proxy')
      .and.include('AWS_ENDPOINT_URL')
      .and.include('DNS')
      .and.not.include('check the keys');
    resolver.clear();
  });

  it('a role assumed through a closed port: the AssumeRole is named unreachable', async () => {
    const port = await closedPort();
    const resolver = new IdentityResolver({
      store: new Platform(),
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => Promise.resolve({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'x' }),
      aws: { endpoint: `http://127.0.0.1:${port}` },
    });
    const error = await failure(resolver, {
      namespace: 'tenant-a',
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-a-tagger' } as never,
    });
    expect(error).to.be.instanceOf(AwsUnreachableError).and.include({ action: 'sts:AssumeRole' });
    resolver.clear();
  });

  describe('against the aws-emulator', () => {
    let aws: AwsEmulator;
    beforeEach(async () => {
      aws = await startAwsEmulator({ world: world() });
    });
    afterEach(async () => aws.stop());

    it('keys AWS does not know: still CredentialsRejected (AWS answered)', async () => {
      const platform = new Platform();
      platform.secrets.set('keymaster-system/tenant-a-keys', {
        data: { AccessKeyID: btoa('AKIAUNKNOWN000000000'), SecretAccessKey: btoa('nope') },
      });
      const resolver = new IdentityResolver({
        store: platform,
        controllerNamespace: 'keymaster-system',
        aws: { endpoint: aws.url },
      });
      const error = await failure(resolver, STATIC);
      expect(error).to.be.instanceOf(AwsCredentialError).and.include({ code: 'ERR_KEYMASTER_CREDENTIALS_REJECTED' });
      resolver.clear();
    });

    it("no controller credentials in the environment: the controller's are named missing, and AWS gets no call", async () => {
      const resolver = new IdentityResolver({
        store: new Platform(),
        controllerNamespace: 'keymaster-system',
        controllerCredentials: fromNodeProviderChain(),
        aws: { endpoint: aws.url },
      });
      const error = await withoutAwsEnvironment(() => failure(resolver, CONTROLLER));
      expect(error).to.be.instanceOf(ControllerCredentialsError);
      expect(error).to.include({ code: 'ERR_KEYMASTER_CONTROLLER_CREDENTIALS_UNAVAILABLE' });
      expect(error.message).to.include(
        "the controller's own AWS credentials could not be loaded: Could not load credentials from any providers",
      );
      expect((error as ControllerCredentialsError).hint)
        .to.include('not the tenant')
        .and.include('IRSA')
        .and.include('Pod Identity');
      expect(aws.calls.summary().total).to.equal(0);
      resolver.clear();
    });
  });
});

describe('isNetworkFailure', () => {
  const withCode = (code: string, name = 'Error') => Object.assign(new Error(`x ${code}`), { code, name });
  it('knows DNS, connection, TLS and time-out failures, and not AWS answers', () => {
    for (const error of [
      withCode('ENOTFOUND'),
      withCode('ECONNRESET'),
      withCode('ETIMEDOUT'),
      withCode('CERT_HAS_EXPIRED'),
      withCode('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      withCode('ERR_TLS_CERT_ALTNAME_INVALID'),
      Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }),
    ])
      expect(isNetworkFailure(error), error.message).to.equal(true);
    const answered = Object.assign(new Error('The security token included in the request is invalid'), {
      name: 'InvalidClientTokenId',
      $metadata: { httpStatusCode: 403 },
    });
    expect(isNetworkFailure(answered)).to.equal(false);
    expect(
      isNetworkFailure(
        Object.assign(new Error('timed out'), { name: 'TimeoutError', $metadata: { httpStatusCode: 504 } }),
      ),
    ).to.equal(false);
  });
});
