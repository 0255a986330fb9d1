import { createHash, X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { AssumeRoleWithWebIdentityCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { eventually } from './helpers/processes.js';
import { startRealKube, type RealKube } from '../../src/index.js';

// The SDK warns once per process that its releases after January 2027 need Node 22; this project runs Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const ACCOUNT = '111111111111';
const STS = 'sts.amazonaws.com';
const REGION = 'us-west-2';

/** A POST to the real API server as its admin; the parsed answer. */
function post(kube: RealKube, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(path, kube.url),
      {
        method: 'POST',
        ca: kube.caCertificate,
        headers: { authorization: `Bearer ${kube.adminToken}`, 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as unknown }),
        );
      },
    );
    call.on('error', reject);
    call.end(payload);
  });
}

describe('the aws-emulator trusts a real kube-apiserver as an OIDC issuer (AssumeRoleWithWebIdentity)', function () {
  this.timeout(180_000);
  let kube: RealKube;
  let aws: AwsEmulator;
  const tokenOf = async (namespace: string): Promise<string> =>
    (
      (
        await post(kube, `/api/v1/namespaces/${namespace}/serviceaccounts/keymaster/token`, {
          spec: { audiences: [STS], expirationSeconds: 600 },
        })
      ).body as { status: { token: string } }
    ).status.token;
  const assume = (token: string) =>
    new STSClient({ endpoint: aws.url, region: REGION, maxAttempts: 1 }).send(
      new AssumeRoleWithWebIdentityCommand({
        RoleArn: `arn:aws:iam::${ACCOUNT}:role/tenant-a`,
        RoleSessionName: 'cluster-a',
        WebIdentityToken: token,
      }),
    );

  before(async () => {
    kube = await startRealKube({ namespaces: ['tenant-a', 'tenant-b'] });
    for (const namespace of ['tenant-a', 'tenant-b']) {
      await post(kube, `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name: 'keymaster' } });
    }
    const issuer = kube.issuer.replace('https://', '');
    aws = await startAwsEmulator({
      world: {
        accounts: [
          {
            id: ACCOUNT,
            oidcProviders: [
              {
                url: kube.issuer,
                clientIds: [STS],
                // The chain of the real server ends in testenv's CA: its SHA-1 is the thumbprint.
                thumbprints: [createHash('sha1').update(new X509Certificate(kube.caCertificate).raw).digest('hex')],
                discovery: { ca: kube.caCertificate },
              },
            ],
            roles: [
              {
                name: 'tenant-a',
                trust: [
                  {
                    federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/${issuer}`,
                    conditions: {
                      StringEquals: {
                        [`${issuer}:sub`]: 'system:serviceaccount:tenant-a:keymaster',
                        [`${issuer}:aud`]: STS,
                      },
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    });
  });
  after(async () => {
    await aws.stop();
    await kube.stop();
  });

  it('cannot read the keys while kube-apiserver keeps its OIDC documents from anonymous readers', async () => {
    const error = await assume(await tokenOf('tenant-a')).then(
      () => expect.fail('the token was accepted'),
      (failure: unknown) => failure as Error,
    );
    expect([error.name, error.message]).to.deep.equal([
      'InvalidIdentityTokenException',
      "Couldn't retrieve verification key from your identity provider,  please reference AssumeRoleWithWebIdentity documentation for requirements",
    ]);
  });

  it("takes the ServiceAccount's token once the issuer is public, and only that ServiceAccount's", async () => {
    // The public-issuer recipe: the bootstrap discovery role, bound to unauthenticated readers as well.
    const binding = await post(kube, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'service-account-issuer-discovery-public' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:service-account-issuer-discovery',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' }],
    });
    expect(binding.status).to.equal(201);
    // RBAC sees the new binding a moment later (kube-apiserver's informers).
    const answer = await eventually(async () => assume(await tokenOf('tenant-a')), 30_000);
    expect(answer).to.deep.include({
      SubjectFromWebIdentityToken: 'system:serviceaccount:tenant-a:keymaster',
      Audience: STS,
    });
    const identity = await new STSClient({
      endpoint: aws.url,
      region: REGION,
      maxAttempts: 1,
      credentials: {
        accessKeyId: answer.Credentials!.AccessKeyId!,
        secretAccessKey: answer.Credentials!.SecretAccessKey!,
        sessionToken: answer.Credentials!.SessionToken!,
      },
    }).send(new GetCallerIdentityCommand({}));
    expect(identity.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-a/cluster-a`);
    const refused = await assume(await tokenOf('tenant-b')).then(
      () => expect.fail('tenant-b was accepted'),
      (failure: unknown) => failure as Error,
    );
    expect([refused.name, refused.message]).to.deep.equal([
      'AccessDenied',
      'Not authorized to perform sts:AssumeRoleWithWebIdentity',
    ]);
  });
});
