import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import {
  AssumeRoleCommand,
  AssumeRoleWithWebIdentityCommand,
  GetCallerIdentityCommand,
  STSClient,
  type AssumeRoleWithWebIdentityCommandInput,
} from '@aws-sdk/client-sts';
import { fromTokenFile, fromWebToken } from '@aws-sdk/credential-providers';
import { expect } from 'chai';
import type { KubeEmulator } from '@keymaster/kube-emulator';
import { startAwsEmulator, type AwsEmulator, type OidcProviderSpec, type World } from '../../src/index.js';
import { failureOf, stsClient, taggingClient, type Keys } from '../support/clients.js';
import { keySetOf, startCluster, tokenOf } from '../support/kube.js';
import { ACCOUNT, OTHER_ACCOUNT, REGION } from '../support/world.js';

const STS = 'sts.amazonaws.com';
const hostPath = (kube: KubeEmulator): string => kube.serviceAccountIssuer.replace('https://', '');
const providerArn = (kube: KubeEmulator, account = ACCOUNT): string =>
  `arn:aws:iam::${account}:oidc-provider/${hostPath(kube)}`;
const role = (name: string, account = ACCOUNT): string => `arn:aws:iam::${account}:role/${name}`;

type KeySource = Omit<OidcProviderSpec, 'url' | 'clientIds'>;

/**
 * The world of these tests: the cluster's issuer trusted in one account (its keys from its discovery
 * document, trusting its CA, unless `keys` says otherwise), tenant roles bound to one ServiceAccount each.
 */
/** A managed policy allowing only sts:AssumeRole, for managed session policies. */
const ASSUME_ONLY = `arn:aws:iam::${ACCOUNT}:policy/AssumeOnly`;

function webIdentityWorld(kube: KubeEmulator, keys: KeySource = { discovery: { ca: kube.caCertificate! } }): World {
  const key = hostPath(kube);
  const onlyServiceAccount = (namespace: string) => ({
    federated: providerArn(kube),
    conditions: {
      StringEquals: { [`${key}:sub`]: `system:serviceaccount:${namespace}:keymaster`, [`${key}:aud`]: STS },
    },
  });
  return {
    accounts: [
      {
        id: ACCOUNT,
        oidcProviders: [{ url: kube.serviceAccountIssuer, clientIds: [STS], ...keys }],
        policies: [
          {
            arn: ASSUME_ONLY,
            document: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: '*' }],
            },
          },
        ],
        roles: [
          {
            name: 'tenant-a',
            maxSessionDuration: 7200,
            trust: [onlyServiceAccount('tenant-a')],
            allow: ['sts:AssumeRole', 'tag:GetResources'],
          },
          { name: 'tenant-b', trust: [onlyServiceAccount('tenant-b')], allow: ['tag:GetResources'] },
          {
            name: 'any-tenant',
            trust: [
              {
                federated: providerArn(kube),
                conditions: { StringLike: { [`${key}:sub`]: 'system:serviceaccount:tenant-*:keymaster' } },
              },
            ],
          },
          { name: 'hub', trust: [{ principal: role('tenant-a') }], allow: ['tag:GetResources'] },
          { name: 'users-only', trust: [{ principal: ACCOUNT }] },
        ],
      },
      { id: OTHER_ACCOUNT, roles: [{ name: 'elsewhere', trust: [{ principal: OTHER_ACCOUNT }] }] },
    ],
  };
}

/** An STS client with no credentials at all: AssumeRoleWithWebIdentity is an unsigned call. */
const anonymousSts = (aws: AwsEmulator): STSClient =>
  new STSClient({ endpoint: aws.url, region: REGION, maxAttempts: 1 });

const keysOf = (credentials: { AccessKeyId?: string; SecretAccessKey?: string; SessionToken?: string }): Keys => ({
  accessKeyId: credentials.AccessKeyId!,
  secretAccessKey: credentials.SecretAccessKey!,
  sessionToken: credentials.SessionToken!,
});

describe('STS AssumeRoleWithWebIdentity, with tokens of the kube-emulator', function () {
  this.timeout(20_000);
  let kube: KubeEmulator;
  let aws: AwsEmulator;
  const assume = (input: Partial<AssumeRoleWithWebIdentityCommandInput> & { WebIdentityToken: string }) =>
    anonymousSts(aws).send(
      new AssumeRoleWithWebIdentityCommand({ RoleArn: role('tenant-a'), RoleSessionName: 'cluster-a', ...input }),
    );
  /** The SDK's name of the error (its exception shape: the wire code InvalidIdentityToken is InvalidIdentityTokenException), message, status. */
  const codeAndMessage = async (call: Promise<unknown>) => {
    const error = await failureOf(call);
    return [error.name, error.message, error.$metadata?.httpStatusCode];
  };

  before(async () => {
    kube = await startCluster([
      ['tenant-a', 'keymaster'],
      ['tenant-b', 'keymaster'],
    ]);
  });
  after(async () => {
    await kube.stop();
  });
  beforeEach(async () => {
    aws = await startAwsEmulator({ world: webIdentityWorld(kube) });
  });
  afterEach(async () => {
    await aws.stop();
  });

  it('issues a role session to the ServiceAccount its trust policy names, with its subject, audience and provider', async () => {
    const before = aws.clock.nowMs();
    const answer = await assume({
      WebIdentityToken: await tokenOf(kube, 'tenant-a', 'keymaster'),
      DurationSeconds: 7200,
    });
    expect(answer).to.deep.include({
      SubjectFromWebIdentityToken: 'system:serviceaccount:tenant-a:keymaster',
      Audience: STS,
      Provider: providerArn(kube),
    });
    expect(answer.AssumedRoleUser!.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-a/cluster-a`);
    expect(answer.AssumedRoleUser!.AssumedRoleId).to.match(/^AROA[A-Z2-7]{17}:cluster-a$/);
    expect(answer.Credentials!.AccessKeyId).to.match(/^ASIA/);
    expect(answer.Credentials!.Expiration!.getTime() - before).to.be.within(7198_000, 7202_000); // Expiration is in whole seconds
    const identity = await stsClient(aws.url, keysOf(answer.Credentials!)).send(new GetCallerIdentityCommand({}));
    expect(identity.Arn).to.equal(answer.AssumedRoleUser!.Arn);
    const resources = await taggingClient(aws.url, keysOf(answer.Credentials!)).send(new GetResourcesCommand({}));
    expect(resources.ResourceTagMappingList).to.deep.equal([]);
  });

  it("refuses another namespace's ServiceAccount (AccessDenied), while a StringLike condition takes both", async () => {
    const tenantB = await tokenOf(kube, 'tenant-b', 'keymaster');
    expect(await codeAndMessage(assume({ WebIdentityToken: tenantB }))).to.deep.equal([
      'AccessDenied',
      'Not authorized to perform sts:AssumeRoleWithWebIdentity',
      403,
    ]);
    for (const token of [tenantB, await tokenOf(kube, 'tenant-a', 'keymaster')]) {
      const answer = await assume({ WebIdentityToken: token, RoleArn: role('any-tenant') });
      expect(answer.AssumedRoleUser!.Arn).to.match(/assumed-role\/any-tenant\/cluster-a$/);
    }
    for (const target of [role('users-only'), role('nobody')]) {
      expect((await failureOf(assume({ WebIdentityToken: tenantB, RoleArn: target }))).name).to.equal('AccessDenied');
    }
  });

  it('checks the audience against the client IDs, the issuer against the account, and the signature', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    const otherAudience = await tokenOf(kube, 'tenant-a', 'keymaster', { audiences: ['vault'] });
    expect(await codeAndMessage(assume({ WebIdentityToken: otherAudience }))).to.deep.equal([
      'InvalidIdentityTokenException',
      'Incorrect token audience',
      400,
    ]);
    expect(
      await codeAndMessage(assume({ WebIdentityToken: token, RoleArn: role('elsewhere', OTHER_ACCOUNT) })),
    ).to.deep.equal([
      'InvalidIdentityTokenException',
      `No OpenIDConnect provider found in your account for ${kube.serviceAccountIssuer}`,
      400,
    ]);
    const stranger = await startCluster([['tenant-a', 'keymaster']]);
    try {
      const foreign = await tokenOf(stranger, 'tenant-a', 'keymaster');
      expect(await codeAndMessage(assume({ WebIdentityToken: foreign }))).to.deep.equal([
        'InvalidIdentityTokenException',
        `No OpenIDConnect provider found in your account for ${stranger.serviceAccountIssuer}`,
        400,
      ]);
    } finally {
      await stranger.stop();
    }
    const [head, claims] = token.split('.') as [string, string];
    const resigned = `${head}.${claims}.${Buffer.from('not the signature').toString('base64url')}`;
    expect((await codeAndMessage(assume({ WebIdentityToken: resigned })))[0]).to.equal('InvalidIdentityTokenException');
    const [name, message] = await codeAndMessage(assume({ WebIdentityToken: 'not-a-jwt' }));
    expect([name, message]).to.deep.equal([
      'InvalidIdentityTokenException',
      'The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)',
    ]);
  });

  it('refuses an expired token on the emulator clock (ExpiredTokenException)', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster', { expirationSeconds: 600 });
    const expiry = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
    aws.clock.advance(601);
    const [name, message] = await codeAndMessage(assume({ WebIdentityToken: token }));
    expect(name).to.equal('ExpiredTokenException');
    expect(message).to.match(
      new RegExp(`^Token expired: current date/time \\d+ must be before the expiration date/time${expiry}$`),
    );
  });

  it('keeps the role duration limits, and the one hour cap when the session assumes another role', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    expect(await codeAndMessage(assume({ WebIdentityToken: token, DurationSeconds: 7201 }))).to.deep.equal([
      'ValidationError',
      'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
      400,
    ]);
    const session = keysOf((await assume({ WebIdentityToken: token })).Credentials!);
    const chain = (DurationSeconds: number) =>
      stsClient(aws.url, session).send(
        new AssumeRoleCommand({ RoleArn: role('hub'), RoleSessionName: 'hub', DurationSeconds }),
      );
    expect((await codeAndMessage(chain(3601)))[1]).to.equal(
      'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
    );
    expect((await chain(3600)).AssumedRoleUser!.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/hub/hub`);
  });

  it('narrows the session by its session policies, as AssumeRole does', async () => {
    const Policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'sts:*', Resource: '*' }],
    });
    const answer = await assume({ WebIdentityToken: await tokenOf(kube, 'tenant-a', 'keymaster'), Policy });
    const refused = await failureOf(
      taggingClient(aws.url, keysOf(answer.Credentials!)).send(new GetResourcesCommand({})),
    );
    expect(refused.message).to.equal(
      `User: ${answer.AssumedRoleUser!.Arn} is not authorized to perform: tag:GetResources because no session policy allows the tag:GetResources action`,
    );
    expect((await failureOf(assume({ WebIdentityToken: 'x.y.z', Policy: '{' }))).name).to.equal(
      'MalformedPolicyDocumentException',
    );
  });

  it('narrows the session by its policy ARNs too, and refuses an unknown one as AssumeRole does', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    const answer = await assume({ WebIdentityToken: token, PolicyArns: [{ arn: ASSUME_ONLY }] });
    const session = keysOf(answer.Credentials!);
    const refused = await failureOf(taggingClient(aws.url, session).send(new GetResourcesCommand({})));
    expect(refused.message).to.equal(
      `User: ${answer.AssumedRoleUser!.Arn} is not authorized to perform: tag:GetResources because no session policy allows the tag:GetResources action`,
    );
    const hub = await stsClient(aws.url, session).send(
      new AssumeRoleCommand({ RoleArn: role('hub'), RoleSessionName: 'hub' }),
    );
    expect(hub.AssumedRoleUser!.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/hub/hub`);
    const missing = `arn:aws:iam::${ACCOUNT}:policy/Missing`;
    expect(await codeAndMessage(assume({ WebIdentityToken: token, PolicyArns: [{ arn: missing }] }))).to.deep.equal([
      'MalformedPolicyDocumentException',
      `Policy ${missing} does not exist or is not attachable.`,
      400,
    ]);
    const Policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: Array.from({ length: 28 }, (_, i) => `ec2:Thing${i}`), Resource: '*' }],
    });
    expect(await codeAndMessage(assume({ WebIdentityToken: token, Policy }))).to.deep.equal([
      'PackedPolicyTooLargeException',
      'Packed policy consumes 103% of allotted space, please use smaller policy.',
      400,
    ]);
  });

  it('checks the parameters as STS does, never showing the token', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    expect(await codeAndMessage(assume({ WebIdentityToken: 'abc', RoleSessionName: 'x' }))).to.deep.equal([
      'ValidationError',
      "2 validation errors detected: Value 'x' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2; Value '*** Sensitive Data Redacted ***' at 'webIdentityToken' failed to satisfy constraint: Member must have length greater than or equal to 4",
      400,
    ]);
    expect(
      await codeAndMessage(assume({ WebIdentityToken: token, RoleArn: 'arn:aws:iam::111111111111:user/bob' })),
    ).to.deep.equal(['ValidationError', 'arn:aws:iam::111111111111:user/bob is invalid', 400]);
  });

  it('serves the SDK credential providers fromWebToken and fromTokenFile', async () => {
    const clientConfig = { endpoint: aws.url, region: REGION };
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    const fromToken = await fromWebToken({ roleArn: role('tenant-a'), webIdentityToken: token, clientConfig })();
    expect(fromToken.accessKeyId).to.match(/^ASIA/);
    const folder = mkdtempSync(join(tmpdir(), 'aws-emulator-web-identity-'));
    try {
      const file = join(folder, 'token');
      writeFileSync(file, token);
      const provider = fromTokenFile({
        roleArn: role('tenant-a'),
        webIdentityTokenFile: file,
        roleSessionName: 'from-file',
        clientConfig,
      });
      const sts = new STSClient({ ...clientConfig, credentials: provider, maxAttempts: 1 });
      const identity = await sts.send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-a/from-file`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('records each call with who and what, never the token or the issued secrets', async () => {
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    const answer = await assume({ WebIdentityToken: token });
    await failureOf(assume({ WebIdentityToken: token, RoleArn: role('tenant-b') }));
    const summary = aws.calls.summary();
    expect(summary.byAction['sts:AssumeRoleWithWebIdentity']).to.equal(2);
    expect(summary.errors['sts:AssumeRoleWithWebIdentity']).to.deep.equal({ AccessDenied: 1 });
    expect(summary.recent[0]!.detail).to.deep.equal({
      roleArn: role('tenant-a'),
      roleSessionName: 'cluster-a',
      provider: providerArn(kube),
      subject: 'system:serviceaccount:tenant-a:keymaster',
      audience: STS,
      issuedAccessKeyId: answer.Credentials!.AccessKeyId,
      sessionArn: answer.AssumedRoleUser!.Arn,
    });
    const recorded = JSON.stringify(summary);
    for (const secret of [token, answer.Credentials!.SecretAccessKey!, answer.Credentials!.SessionToken!]) {
      expect(recorded).not.to.contain(secret);
    }
    expect(aws.world.sessions().at(-1)).to.include({ sourceArn: providerArn(kube), chained: false });
  });

  it('takes injected faults and throttling like any action', async () => {
    aws.faults.add({ action: 'sts:AssumeRoleWithWebIdentity', errorCode: 'Throttling', count: 1 });
    const token = await tokenOf(kube, 'tenant-a', 'keymaster');
    expect((await failureOf(assume({ WebIdentityToken: token }))).name).to.equal('Throttling');
    expect((await assume({ WebIdentityToken: token })).Audience).to.equal(STS);
  });

  describe('where the keys come from', () => {
    const thumbprintOf = (pem: string): string => createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
    const restart = async (keys: KeySource) => {
      await aws.stop();
      aws = await startAwsEmulator({ world: webIdentityWorld(kube, keys) });
    };
    const trusted = () => ({ ca: kube.caCertificate! });

    it('checks the thumbprints of the key server certificate when there are any', async () => {
      const token = await tokenOf(kube, 'tenant-a', 'keymaster');
      await restart({ discovery: trusted(), thumbprints: [thumbprintOf(kube.caCertificate!)] });
      expect((await assume({ WebIdentityToken: token })).Audience).to.equal(STS);
      await restart({ discovery: trusted(), thumbprints: ['0'.repeat(40)] });
      expect(await codeAndMessage(assume({ WebIdentityToken: token }))).to.deep.equal([
        'InvalidIdentityTokenException',
        "Couldn't retrieve verification key from your identity provider,  please reference AssumeRoleWithWebIdentity documentation for requirements",
        400,
      ]);
    });

    it('fails alike when the issuer cannot be reached or is not trusted', async () => {
      const token = await tokenOf(kube, 'tenant-a', 'keymaster');
      await restart({ discovery: {} }); // the system's CAs only
      expect((await failureOf(assume({ WebIdentityToken: token }))).message).to.match(
        /^Couldn't retrieve verification key/,
      );
      await restart({ discovery: { url: 'http://127.0.0.1:9/.well-known/openid-configuration' } });
      expect((await failureOf(assume({ WebIdentityToken: token }))).message).to.match(
        /^Couldn't retrieve verification key/,
      );
    });

    it('takes the key set from the world file instead', async () => {
      const token = await tokenOf(kube, 'tenant-a', 'keymaster');
      await restart({ jwks: await keySetOf(kube) });
      expect((await assume({ WebIdentityToken: token })).SubjectFromWebIdentityToken).to.equal(
        'system:serviceaccount:tenant-a:keymaster',
      );
    });
  });
});
