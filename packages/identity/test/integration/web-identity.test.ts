import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startAwsEmulator, type AwsEmulator, type World } from '@keymaster/aws-emulator';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import type { IdentityReference } from '@keymaster/api';
import { expect } from 'chai';
import {
  AwsCredentialError,
  IdentityResolver,
  ServiceAccountTokenError,
  kubeServiceAccountTokens,
  refreshWindowMs,
  type IdentityObject,
  type IdentitySession,
} from '../../src/index.js';
import { identity, memoryStore, role } from '../fixtures.js';

const ACCOUNT = '222222222222';
const STS = 'sts.amazonaws.com';
const arn = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
const web = (ref: string): IdentityReference => ({ kind: 'AWSClusterWebIdentity', name: ref });
const roleRef = (ref: string): IdentityReference => ({ kind: 'AWSClusterRoleIdentity', name: ref });
const JWT = /eyJ[\w-]+\.eyJ/;

/**
 * IAM as a tenant platform sets it up for web identities: the cluster's issuer trusted as an OIDC
 * provider, each tenant's role trusting only its own namespace's ServiceAccount, and a chain of roles
 * above tenant A's.
 */
function world(kube: KubeEmulator): World {
  const issuer = kube.serviceAccountIssuer.replace('https://', '');
  const only = (namespace: string, name = 'keymaster') => ({
    federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/${issuer}`,
    conditions: {
      StringEquals: { [`${issuer}:sub`]: `system:serviceaccount:${namespace}:${name}`, [`${issuer}:aud`]: STS },
    },
  });
  const allow = ['sts:AssumeRole', 'sts:GetCallerIdentity', 'tag:GetResources'];
  return {
    accounts: [
      {
        id: ACCOUNT,
        oidcProviders: [{ url: kube.serviceAccountIssuer, clientIds: [STS], discovery: { ca: kube.caCertificate! } }],
        roles: [
          { name: 'tenant-a', trust: [only('tenant-a')], allow },
          { name: 'tenant-b', trust: [only('tenant-b')], allow },
          { name: 'platform', trust: [only('keymaster-system', 'keymaster-platform')], allow },
          {
            name: 'any-tenant',
            trust: [
              {
                federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/${issuer}`,
                conditions: { StringLike: { [`${issuer}:sub`]: 'system:serviceaccount:tenant-*:keymaster' } },
              },
            ],
            allow,
          },
          { name: 'hop', trust: [{ principal: arn('tenant-a') }], allow },
          { name: 'final', trust: [{ principal: arn('hop') }], allow },
        ],
      },
    ],
  };
}

const webIdentity = (name: string, spec: Record<string, unknown>) =>
  identity('AWSClusterWebIdentity', name, { allowedNamespaces: {}, ...spec });

describe('web identities: TokenRequest of the kube-emulator, AssumeRoleWithWebIdentity of the aws-emulator', function () {
  this.timeout(60_000);
  let kube: KubeEmulator;
  let aws: AwsEmulator;
  let resolver: IdentityResolver;
  // The emulators share a clock: tokens are issued at the aws-emulator's time, which the tests move on.
  let now = () => Date.now();
  const identities: IdentityObject[] = [
    // allowedNamespaces deliberately too broad: only AWS's trust policy keeps tenant B out.
    webIdentity('tenant-a', { roleARN: arn('tenant-a'), serviceAccount: { name: 'keymaster' } }),
    webIdentity('tenant-b', { roleARN: arn('tenant-b'), serviceAccount: { name: 'keymaster' } }),
    webIdentity('platform', {
      roleARN: arn('platform'),
      serviceAccount: { name: 'keymaster-platform', namespace: 'Controller' },
    }),
    webIdentity('shared', { roleARN: arn('any-tenant'), serviceAccount: { name: 'keymaster' } }),
    role('hop', { roleARN: arn('hop'), sourceIdentityRef: web('tenant-a') }),
    role('final', { roleARN: arn('final'), sourceIdentityRef: roleRef('hop') }),
  ];
  // The emulator counts a subresource's requests under its resource; no ServiceAccount is created after `before`.
  const tokenRequests = () => kube.stats.total({ verb: 'create', resource: 'serviceaccounts' });
  const calls = (action: string) => aws.calls.summary().byAction[action] ?? 0;
  const resolve = (namespace: string, identityRef: IdentityReference) =>
    resolver.resolve({ namespace, identityRef, region: 'us-west-2' });
  const tagApiCall = (session: IdentitySession) =>
    session.client(ResourceGroupsTaggingAPIClient).send(new GetResourcesCommand({}));

  before(async () => {
    kube = await startKubeEmulator({ tls: true, serviceAccountTokenClock: () => now() });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    const core = kubeConfig.makeApiClient(CoreV1Api);
    for (const [namespace, serviceAccount] of [
      ['tenant-a', 'keymaster'],
      ['tenant-b', 'keymaster'],
      ['keymaster-system', 'keymaster-platform'],
      ['tenant-c', undefined],
    ] as const) {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      if (serviceAccount)
        await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } });
    }
    aws = await startAwsEmulator({ world: world(kube) });
    now = () => aws.clock.nowMs();
    resolver = new IdentityResolver({
      store: memoryStore(identities).store,
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => Promise.reject(new Error('web identities need no controller credentials')),
      serviceAccountTokens: kubeServiceAccountTokens(kubeConfig),
      aws: { endpoint: aws.url, stsRegion: 'us-east-1' },
      clock: () => aws.clock.nowMs(),
    });
  });
  after(async () => {
    resolver.clear();
    await aws.stop();
    await kube.stop();
  });
  beforeEach(() => {
    resolver.clear();
    aws.calls.reset();
    kube.stats.reset();
  });

  it("assumes the role with a token of the cluster namespace's ServiceAccount: one TokenRequest and one AssumeRoleWithWebIdentity per namespace, single flight", async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => resolve('tenant-a', web('tenant-a'))));
    expect(new Set(sessions.map(({ key }) => key)).size).to.equal(1);
    expect(sessions[0]).to.include({
      accountId: ACCOUNT,
      principalArn: `arn:aws:sts::${ACCOUNT}:assumed-role/tenant-a/keymaster-tenant-a`,
    });
    expect(sessions[0]!.chain).to.deep.equal([
      { kind: 'AWSClusterWebIdentity', name: 'tenant-a', roleARN: arn('tenant-a') },
    ]);
    await tagApiCall(sessions[0]!);
    expect([tokenRequests(), calls('sts:AssumeRoleWithWebIdentity'), calls('sts:GetCallerIdentity')]).to.deep.equal([
      1, 1, 1,
    ]);
    const call = aws.calls.summary().recent.find(({ action }) => action === 'sts:AssumeRoleWithWebIdentity');
    expect(call).to.include({ outcome: 'success' });
    expect(call!.accessKeyId, 'unsigned').to.equal(undefined);

    // Another namespace's session is another TokenRequest, of that namespace's ServiceAccount.
    const tenantB = await resolve('tenant-b', web('tenant-b'));
    expect(tenantB.key).to.not.equal(sessions[0]!.key);
    expect(tenantB.principalArn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b/keymaster-tenant-b`);
    expect(tokenRequests()).to.equal(2);
  });

  it('is refused by AWS for a cluster of another namespace, though allowedNamespaces lets it through', async () => {
    const error = await resolve('tenant-b', web('tenant-a')).then(
      () => expect.fail('tenant B acted as tenant A'),
      (failure: unknown) => failure as AwsCredentialError,
    );
    expect(error).to.be.instanceOf(AwsCredentialError);
    expect(error).to.include({
      code: 'ERR_KEYMASTER_ASSUME_ROLE_WITH_WEB_IDENTITY_FAILED',
      awsCode: 'AccessDenied',
      reason: 'AssumeRoleWithWebIdentityFailed',
      usageChecked: true,
    });
    expect(error.hint).to.include('system:serviceaccount:tenant-b:keymaster');
    expect(`${error.message} ${error.hint ?? ''}`).to.not.match(JWT);
    expect(calls('tag:GetResources'), 'no call acted for tenant A').to.equal(0);
  });

  it("keeps each namespace's session of one identity while others are used: no namespace evicts another's", async () => {
    for (let round = 0; round < 3; round++)
      for (const namespace of ['tenant-a', 'tenant-b']) await tagApiCall(await resolve(namespace, web('shared')));
    expect([tokenRequests(), calls('sts:AssumeRoleWithWebIdentity')]).to.deep.equal([2, 2]);
  });

  it('a platform-wide identity takes its token in the controller namespace: one session for every namespace', async () => {
    const [a, b] = [await resolve('tenant-a', web('platform')), await resolve('tenant-c', web('platform'))];
    expect(a.key).to.equal(b.key);
    expect(a.principalArn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/platform/keymaster-platform`);
    expect([tokenRequests(), calls('sts:AssumeRoleWithWebIdentity')]).to.deep.equal([1, 1]);
  });

  it('a namespace without the ServiceAccount: ServiceAccountTokenFailed naming it, and no STS call', async () => {
    const error = await resolve('tenant-c', web('tenant-a')).then(
      () => expect.fail('resolved without a ServiceAccount'),
      (failure: unknown) => failure as ServiceAccountTokenError,
    );
    expect(error).to.be.instanceOf(ServiceAccountTokenError);
    expect(error).to.include({ code: 'ERR_KEYMASTER_SERVICE_ACCOUNT_TOKEN_FAILED', status: 404, transient: false });
    expect(error.message).to.include('tenant-c/keymaster');
    expect(error.hint).to.include('Create the ServiceAccount tenant-c/keymaster');
    expect(calls('sts:AssumeRoleWithWebIdentity')).to.equal(0);
  });

  it('web -> role -> role, across 10 hours of emulator time: one TokenRequest and one AssumeRoleWithWebIdentity per web session, never an expired token', async () => {
    const stepMs = 120_000;
    const hours = 10;
    for (let elapsed = 0; elapsed <= hours * 3_600_000; elapsed += stepMs) {
      const session = await resolve('tenant-a', roleRef('final'));
      await tagApiCall(session);
      aws.clock.advance(stepMs / 1000);
    }
    const session = await resolve('tenant-a', roleRef('final'));
    expect(session.chain.map(({ name }) => name)).to.deep.equal(['final', 'hop', 'tenant-a']);

    // Each link renews at its first use inside its renewal window; a source is used only when the link above renews.
    const renewals = (uses: number[]) => {
      const at: number[] = [];
      let renewAt = -Infinity;
      for (const time of uses) {
        if (time < renewAt) continue;
        at.push(time);
        renewAt = time + 3_600_000 - refreshWindowMs(3_600_000);
      }
      return at;
    };
    const steps = Array.from({ length: (hours * 3_600_000) / stepMs + 1 }, (_, index) => index * stepMs);
    const final = renewals(steps);
    const hop = renewals(final);
    const tenantA = renewals(hop);
    expect(final.length, 'sessions of 3600 s over 10 h').to.be.within(10, 12);
    const summary = aws.calls.summary();
    expect(summary.errors, 'no call failed, ExpiredToken or other').to.deep.equal({});
    expect(summary.byAction['sts:AssumeRole']).to.equal(final.length + hop.length);
    expect(summary.byAction['sts:AssumeRoleWithWebIdentity']).to.equal(tenantA.length);
    expect(tokenRequests()).to.equal(tenantA.length);
    expect(summary.byAction['sts:GetCallerIdentity']).to.equal(1);
  });
});
