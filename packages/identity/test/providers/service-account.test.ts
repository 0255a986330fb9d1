import type { STSClient } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import {
  IdentityNotFoundError,
  IdentityResolver,
  providerOf,
  type CredentialContext,
  type IdentityObject,
} from '../../src/index.js';
import { memoryStore, serviceAccountIdentity } from '../fixtures.js';

const KIND = 'AWSServiceAccountIdentity' as const;
const linkOf = (identity: IdentityObject) => ({ kind: identity.kind, name: identity.metadata.name!, identity });

/** A CredentialContext whose TokenRequest and unsigned STS record what they are asked, and STS answers `answer`. */
function recordingContext(namespace: string, answer: () => Promise<unknown>) {
  const asked = { tokens: [] as string[][], sts: [] as Record<string, unknown>[] };
  const context = {
    namespace,
    controllerNamespace: 'keymaster-system',
    serviceAccountTokens: {
      request: (ns: string, name: string, audience: string) => {
        asked.tokens.push([ns, name, audience]);
        return Promise.resolve({ token: 'jwt', expiresAt: new Date(0) });
      },
    },
    unsignedSts: () =>
      ({
        send: (command: { input: Record<string, unknown> }) => {
          asked.sts.push(command.input);
          return answer();
        },
      }) as unknown as STSClient,
    stsEndpoint: 'https://sts.amazonaws.com',
    stsCall: () => undefined,
  } as unknown as CredentialContext;
  return { context, asked };
}

const CREDENTIALS = { Credentials: { AccessKeyId: 'ASIAEXAMPLE', SecretAccessKey: 's', SessionToken: 't' } };

describe('the ServiceAccount identity provider', () => {
  it("assumes its role with a token of its own namespace's ServiceAccount, whatever namespace asks", async () => {
    const own = serviceAccountIdentity('tenant-a', 'own', { audience: 'sts.example.com', durationSeconds: 1800 });
    const { context, asked } = recordingContext('tenant-b', () => Promise.resolve(CREDENTIALS));
    const credentials = await providerOf(KIND).credentials(linkOf(own), context)();
    expect(credentials).to.include({ accessKeyId: 'ASIAEXAMPLE', sessionToken: 't' });
    expect(asked.tokens).to.deep.equal([['tenant-a', 'keymaster', 'sts.example.com']]);
    expect(asked.sts).to.deep.equal([
      {
        RoleArn: 'arn:aws:iam::222222222222:role/own',
        RoleSessionName: 'keymaster-own',
        WebIdentityToken: 'jwt',
        DurationSeconds: 1800,
      },
    ]);
  });

  it("names the subject its role's trust policy must trust when AWS refuses", async () => {
    const own = serviceAccountIdentity('tenant-a', 'own');
    const denied = Object.assign(new Error('Not authorized'), { name: 'AccessDenied' });
    const { context } = recordingContext('tenant-a', () => Promise.reject(denied));
    const error = await providerOf(KIND)
      .credentials(linkOf(own), context)()
      .then(
        () => expect.fail('assumed'),
        (caught: unknown) => caught as Error & { hint?: string },
      );
    expect(error.hint).to.include('system:serviceaccount:tenant-a:keymaster');
  });

  it('keys its sessions by its own namespace, and by nothing that shapes no credentials', () => {
    const inputs = (identity: IdentityObject) =>
      providerOf(KIND).credentialInputs(linkOf(identity), 'tenant-a', 'keymaster-system');
    const a = serviceAccountIdentity('tenant-a', 'own', { resourceTags: [{ key: 'k', value: 'v' }] });
    const b = serviceAccountIdentity('tenant-b', 'own');
    expect(inputs(a)).to.deep.include({ tokenNamespace: 'tenant-a' });
    expect(inputs(b)).to.deep.include({ tokenNamespace: 'tenant-b' });
    expect(inputs(a)).to.not.have.any.keys('credentialVending', 'resourceTags');
  });

  it('is a root of chains, shows its role and ServiceAccount, and gives workloads its role to assume', () => {
    const own = serviceAccountIdentity('tenant-a', 'own');
    const provider = providerOf(KIND);
    expect(provider.source(own)).to.equal(undefined);
    expect(provider.secrets(own)).to.deep.equal([]);
    expect(provider.linkDetails(own)).to.deep.equal({ roleARN: 'arn:aws:iam::222222222222:role/own' });
    expect(provider.actsWith(own)).to.equal(
      'role arn:aws:iam::222222222222:role/own with a token of ServiceAccount keymaster in its own namespace',
    );
    expect(provider.vending?.workloadConfig?.(own)).to.deep.equal({
      roleArn: 'arn:aws:iam::222222222222:role/own',
      sessionName: 'keymaster-own',
    });
  });

  it('is never found from another namespace: no token is requested and no STS call made for it', async () => {
    let asked = 0;
    const { store } = memoryStore([serviceAccountIdentity('tenant-a', 'own')]);
    const resolver = new IdentityResolver({
      store,
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => {
        asked += 1;
        return Promise.reject(new Error('no credentials may be asked for'));
      },
      serviceAccountTokens: {
        request: () => {
          asked += 1;
          return Promise.reject(new Error('no token may be requested'));
        },
      },
      aws: { endpoint: 'http://127.0.0.1:9' },
    });
    const error = await resolver
      .resolve({ namespace: 'tenant-b', identityRef: { kind: KIND, name: 'own' }, region: 'us-east-1' })
      .then(
        () => expect.fail('resolved'),
        (caught: unknown) => caught,
      );
    expect(error).to.be.instanceOf(IdentityNotFoundError);
    expect(asked).to.equal(0);
  });
});
