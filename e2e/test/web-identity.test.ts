import { expect } from 'chai';
import type { World } from '@keymaster/aws-emulator';
import { webIdentityTrustPolicy, type AWSCluster, type AWSClusterWebIdentity } from '@keymaster/api';
import type { ServiceAccountIssuer } from './support/api-server.js';
import { MANAGEMENT, TAGGER, clusterResources, controllerUser, emulatorTrust, roleArn } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady } from './support/kube.js';
import {
  awsCluster,
  namespace,
  publicIssuerDiscovery,
  roleIdentity,
  roleRef,
  serviceAccount,
  webIdentity,
  webRef,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';
import { BACKEND } from './support/api-server.js';

const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const STS = 'sts.amazonaws.com';
const ROLE = {
  webA: roleArn(TENANT_A, 'tenant-a-web'),
  hop: roleArn(TENANT_A, 'tenant-a-hop'),
  admin: roleArn(TENANT_A, 'tenant-a-admin'),
  webB: roleArn(TENANT_B, 'tenant-b-web'),
};
const resources = {
  payments: clusterResources(TENANT_A, 'us-west-2', 'payments', 2),
  analytics: clusterResources(TENANT_B, 'eu-west-1', 'analytics', 2),
  // Where tenant B's cluster would act had AWS taken tenant A's role for it.
  borrowed: clusterResources(TENANT_A, 'us-west-2', 'borrowed', 2),
};
const SESSION_TOKEN_PREFIX = 'IQoJb3JpZ2lu';
const JWT = /eyJ[\w-]{8,}\.eyJ/;

/** Each tenant's account trusts the management cluster's issuer, and its web role only its own namespace's ServiceAccount. */
function world(issuer: ServiceAccountIssuer): World {
  const host = issuer.url.replace('https://', '');
  const provider = { url: issuer.url, clientIds: [STS], discovery: { ca: issuer.ca } };
  // deploy/iam/web-identity-trust.json's source, for this issuer.
  const trustsOnly = (account: string, namespace: string) =>
    emulatorTrust(
      webIdentityTrustPolicy({
        provider: `arn:aws:iam::${account}:oidc-provider/${host}`,
        namespace,
        serviceAccount: 'keymaster',
        audience: STS,
      }),
    );
  return {
    accounts: [
      { id: MANAGEMENT, users: [controllerUser()] },
      {
        id: TENANT_A,
        oidcProviders: [provider],
        roles: [
          { name: 'tenant-a-web', trust: trustsOnly(TENANT_A, 'tenant-a'), allow: ['sts:AssumeRole'] },
          { name: 'tenant-a-hop', trust: [{ principal: ROLE.webA }], allow: ['sts:AssumeRole'] },
          { name: 'tenant-a-admin', trust: [{ principal: ROLE.hop }], allow: TAGGER },
        ],
        resources: [...resources.payments, ...resources.borrowed],
      },
      {
        id: TENANT_B,
        oidcProviders: [provider],
        roles: [{ name: 'tenant-b-web', trust: trustsOnly(TENANT_B, 'tenant-b'), allow: TAGGER }],
        resources: resources.analytics,
      },
    ],
  };
}

describe('web identities: tenancy that AWS itself enforces', function () {
  let scenario: Scenario;
  /** Successful calls of an action, of a role when given (AssumeRoleWithWebIdentity is unsigned: no caller). */
  const successes = (action: string, role?: string) =>
    scenario.aws.calls(
      (call) => call.action === action && call.outcome === 'success' && (!role || call.detail?.['roleArn'] === role),
    ).length;

  before(async function () {
    scenario = await startScenario({
      world,
      objects: [
        namespace('tenant-a'),
        namespace('tenant-b'),
        ...publicIssuerDiscovery(),
        serviceAccount('tenant-a', 'keymaster'),
        serviceAccount('tenant-b', 'keymaster'),
        // Deliberately too broad: tenant B may name tenant A's identity. Only AWS's trust policy stops it.
        webIdentity('tenant-a', {
          roleARN: ROLE.webA,
          serviceAccount: { name: 'keymaster' },
          allowedNamespaces: { list: ['tenant-a', 'tenant-b'] },
        }),
        webIdentity('tenant-b', {
          roleARN: ROLE.webB,
          serviceAccount: { name: 'keymaster' },
          allowedNamespaces: { list: ['tenant-b'] },
        }),
        roleIdentity('tenant-a-hop', {
          roleARN: ROLE.hop,
          sourceIdentityRef: webRef('tenant-a'),
          allowedNamespaces: { list: ['tenant-a'] },
        }),
        roleIdentity('tenant-a-admin', {
          roleARN: ROLE.admin,
          sourceIdentityRef: roleRef('tenant-a-hop'),
          allowedNamespaces: { list: ['tenant-a'] },
        }),
        awsCluster('tenant-a', 'payments', {
          region: 'us-west-2',
          identityRef: roleRef('tenant-a-admin'),
          additionalTags: { team: 'payments' },
        }),
        awsCluster('tenant-b', 'analytics', {
          region: 'eu-west-1',
          identityRef: webRef('tenant-b'),
          additionalTags: { team: 'analytics' },
        }),
        awsCluster('tenant-b', 'borrowed', {
          region: 'us-west-2',
          identityRef: webRef('tenant-a'),
          additionalTags: { team: 'borrowed' },
        }),
      ],
      syncPeriod: '2s',
    });
    await eventually(async () => {
      const clusters = await scenario.kube.clusters();
      expect(clusters.filter(isReady).map(({ metadata }) => metadata.name)).to.have.members(['payments', 'analytics']);
      const borrowed = clusters.find(({ metadata }) => metadata.name === 'borrowed')!;
      expect(condition(borrowed, 'PrincipalCredentialRetrieved')?.status).to.equal('False');
    });
  });

  after(stopScenarios);

  it("refuses, by AWS's trust policy, tenant B's cluster pointed at tenant A's web identity, and says so in its conditions", async function () {
    const borrowed = await scenario.kube.cluster('tenant-b', 'borrowed');
    expect(condition(borrowed, 'PrincipalUsageAllowed')?.status, 'Keymaster let it through').to.equal('True');
    const retrieved = condition(borrowed, 'PrincipalCredentialRetrieved')!;
    expect(retrieved).to.include({ status: 'False', reason: 'AssumeRoleWithWebIdentityFailed' });
    expect(retrieved.message).to.include('AccessDenied').and.include('system:serviceaccount:tenant-b:keymaster');
    expect(condition(borrowed, 'Ready')?.status).to.equal('False');
    const refused = scenario.aws.calls(
      (call) => call.action === 'sts:AssumeRoleWithWebIdentity' && call.detail?.['roleArn'] === ROLE.webA,
    );
    expect(refused.filter(({ outcome }) => outcome === 'error').map(({ errorCode }) => errorCode)).to.include(
      'AccessDenied',
    );
    for (const resource of resources.borrowed) expect(scenario.aws.tags(resource.arn)).to.not.have.property('team');
  });

  it('acts for each tenant in its own account with its own ServiceAccount, the chain web -> role -> role included', async function () {
    const payments = await scenario.kube.cluster('tenant-a', 'payments');
    expect(payments.status?.accountID).to.equal(TENANT_A);
    expect(payments.status?.identityChain).to.deep.equal([
      { kind: 'AWSClusterRoleIdentity', name: 'tenant-a-admin', roleARN: ROLE.admin },
      { kind: 'AWSClusterRoleIdentity', name: 'tenant-a-hop', roleARN: ROLE.hop },
      { kind: 'AWSClusterWebIdentity', name: 'tenant-a', roleARN: ROLE.webA },
    ]);
    for (const resource of resources.payments) expect(scenario.aws.tags(resource.arn)).to.include({ team: 'payments' });
    for (const resource of resources.analytics)
      expect(scenario.aws.tags(resource.arn)).to.include({ team: 'analytics' });
    await eventually(async () => {
      const [tenantB] = (
        await scenario.kube.list<AWSClusterWebIdentity>('infrastructure.keymaster.dev/v1beta1', 'AWSClusterWebIdentity')
      ).filter(({ metadata }) => metadata.name === 'tenant-b');
      expect(tenantB?.status).to.include({ accountID: TENANT_B, clusterCount: 1 });
      expect(tenantB?.status?.lastAssumeRoleTime).to.be.a('string');
    });
    // One session per (identity, namespace), across every resync since.
    expect(successes('sts:AssumeRoleWithWebIdentity', ROLE.webA)).to.equal(1);
    expect(successes('sts:AssumeRoleWithWebIdentity', ROLE.webB)).to.equal(1);
    expect(successes('sts:AssumeRole', ROLE.hop)).to.equal(1);
    expect(successes('sts:AssumeRole', ROLE.admin)).to.equal(1);
  });

  it('renews the chain across 10 hours of emulator time: one AssumeRoleWithWebIdentity and one AssumeRole per link per session', async function () {
    // A real kube-apiserver issues tokens on its own clock, which the test cannot move with the aws-emulator's.
    if (BACKEND === 'real') this.skip();
    const { aws } = scenario;
    const [instance] = resources.payments;
    const before = {
      web: successes('sts:AssumeRoleWithWebIdentity', ROLE.webA),
      hop: successes('sts:AssumeRole', ROLE.hop),
      admin: successes('sts:AssumeRole', ROLE.admin),
    };
    const hours = 10;
    for (let hour = 1; hour <= hours; hour++) {
      // Every session of the chain (3600 s) expires in AWS's eyes; the next reconcile renews it.
      aws.emulator.clock.advance(3600);
      await aws.setTags(instance!.arn, { ...aws.tags(instance!.arn), team: `edited-by-hand-${hour}` });
      await eventually(() => expect(aws.tags(instance!.arn)).to.include({ team: 'payments' }));
    }
    expect(successes('sts:AssumeRoleWithWebIdentity', ROLE.webA) - before.web).to.equal(hours);
    expect(successes('sts:AssumeRole', ROLE.hop) - before.hop).to.equal(hours);
    expect(successes('sts:AssumeRole', ROLE.admin) - before.admin).to.equal(hours);
    // A reconcile that met the expired sessions may have said so; the next one, renewed, is Ready.
    await eventually(async () => {
      const payments = await scenario.kube.cluster('tenant-a', 'payments');
      expect(condition(payments, 'Ready')?.status, JSON.stringify(payments.status?.conditions)).to.equal('True');
    });
  });

  it('never shows a token or credential in logs, events, conditions, identity status or metrics', async function () {
    const { controller, kube } = scenario;
    const clusters = await kube.clusters();
    const events = (
      await Promise.all(clusters.map(({ metadata }) => kube.events(metadata.namespace!, metadata.name!)))
    ).flat();
    const identities = await kube.list<AWSClusterWebIdentity>(
      'infrastructure.keymaster.dev/v1beta1',
      'AWSClusterWebIdentity',
    );
    const texts = {
      logs: controller.output.join('\n'),
      events: events.map((event) => `${event.reason ?? ''} ${event.message ?? ''}`).join('\n'),
      conditions: clusters.map((cluster: AWSCluster) => JSON.stringify(cluster.status)).join('\n'),
      identities: JSON.stringify(identities.map(({ status }) => status)),
      metrics: await controller.metrics(),
    };
    expect(texts.conditions).to.include('AccessDenied');
    for (const [where, text] of Object.entries(texts)) {
      expect(text, where).to.not.match(JWT);
      expect(text, where).to.not.include(SESSION_TOKEN_PREFIX);
    }
    expect(texts.metrics).to.match(/keymaster_sts_calls_total\{[^}]*action="AssumeRoleWithWebIdentity"/);
  });
});
