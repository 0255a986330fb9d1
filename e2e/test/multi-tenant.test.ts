import { expect } from 'chai';
import type { IdentityReference } from '@keymaster/api';
import type { CallRecord } from '@keymaster/aws-emulator';
import {
  CONTROLLER_USER,
  HUB_ROLE,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
  userArn,
} from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady } from './support/kube.js';
import {
  awsCluster,
  controllerIdentity,
  externalIDSecret,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const TENANT_C = '444444444444';
const TENANT_A_KEY = accessKey('multi-tenant/tenant-a');
/** Tenant A's second user, for a purpose of its own: only tenant-a may use it, and no tenant-a cluster does. */
const LEGACY_KEY = accessKey('multi-tenant/tenant-a-legacy');
const EXTERNAL_ID = { b: '7a5b816a-7743-4377-a382-2d695bf1f172', c: 'c0ffee00-1111-2222-3333-444455556666' };
const TENANT_B_ROLE = roleArn(TENANT_B, 'tenant-b-admin');
const TENANT_C_ROLE = roleArn(TENANT_C, 'tenant-c-admin');

const resources = {
  payments: clusterResources(TENANT_A, 'us-west-2', 'payments', 3),
  analytics: clusterResources(TENANT_B, 'eu-west-1', 'analytics', 3),
  // The refused clusters' resources, where their credentials would find them.
  borrowedKeys: clusterResources(TENANT_A, 'us-west-2', 'borrowed-keys', 2),
  borrowedRole: clusterResources(TENANT_B, 'eu-west-1', 'borrowed-role', 2),
  ownChain: clusterResources(TENANT_C, 'eu-west-1', 'own-chain', 2),
};

/** A cluster that wants its team's tag on its resources: tagging them is a write AWS records. */
const teamCluster = (namespace: string, name: string, region: string, identityRef: IdentityReference) =>
  awsCluster(namespace, name, { region, identityRef, additionalTags: { team: name } });

describe('multi-tenant: each cluster acts only with credentials its namespace may use', function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: TENANT_A,
            users: [
              { name: 'tenant-a-automation', accessKeys: [TENANT_A_KEY], allow: TAGGER },
              { name: 'tenant-a-legacy', accessKeys: [LEGACY_KEY], allow: TAGGER },
            ],
            resources: [...resources.payments, ...resources.borrowedKeys],
          },
          {
            id: TENANT_B,
            roles: [tenantRole('tenant-b-admin', HUB_ROLE, EXTERNAL_ID.b)],
            resources: [...resources.analytics, ...resources.borrowedRole],
          },
          {
            id: TENANT_C,
            roles: [tenantRole('tenant-c-admin', HUB_ROLE, EXTERNAL_ID.c)],
            resources: resources.ownChain,
          },
        ],
      },
      objects: [
        namespace('tenant-a', { 'keymaster.dev/tenant': 'tenant-a' }),
        namespace('tenant-b', { 'keymaster.dev/tenant': 'tenant-b' }),
        namespace('tenant-c', { 'keymaster.dev/tenant': 'tenant-c' }),
        // The hub's source must allow every namespace that uses a role built on the hub.
        controllerIdentity({ list: ['tenant-b', 'tenant-c'] }),
        keysSecret('tenant-a-keys', TENANT_A_KEY),
        keysSecret('tenant-a-legacy-keys', LEGACY_KEY),
        staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }),
        staticIdentity('tenant-a-legacy', 'tenant-a-legacy-keys', { list: ['tenant-a'] }),
        roleIdentity('keymaster-hub', {
          roleARN: HUB_ROLE,
          allowedNamespaces: { selector: { matchLabels: { 'keymaster.dev/tenant': 'tenant-b' } } },
        }),
        // Tenant B's externalID in a Secret tenants cannot read; tenant C's in its spec, as older releases kept it.
        externalIDSecret('tenant-b-external-id', EXTERNAL_ID.b),
        roleIdentity('tenant-b', {
          roleARN: TENANT_B_ROLE,
          externalIDSecretRef: { name: 'tenant-b-external-id', key: 'externalID' },
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-b'] },
        }),
        // Tenant C's own role allows tenant-c, but the hub it is built on does not.
        roleIdentity('tenant-c', {
          roleARN: TENANT_C_ROLE,
          externalID: EXTERNAL_ID.c,
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-c'] },
        }),
        teamCluster('tenant-a', 'payments', 'us-west-2', staticRef('tenant-a')),
        teamCluster('tenant-b', 'analytics', 'eu-west-1', roleRef('tenant-b')),
        teamCluster('tenant-c', 'borrowed-keys', 'us-west-2', staticRef('tenant-a-legacy')),
        teamCluster('tenant-c', 'borrowed-role', 'eu-west-1', roleRef('tenant-b')),
        teamCluster('tenant-c', 'own-chain', 'eu-west-1', roleRef('tenant-c')),
      ],
      syncPeriod: '2s',
    });
    // Every cluster has been reconciled: the allowed ones are Ready, the refused ones say so.
    await eventually(async () => {
      const clusters = await scenario.kube.clusters();
      expect(clusters.filter(isReady).map(({ metadata }) => metadata.name)).to.have.members(['payments', 'analytics']);
      for (const cluster of clusters)
        expect(condition(cluster, 'PrincipalUsageAllowed'), cluster.metadata.name).to.exist;
    });
  });

  after(stopScenarios);

  it("tenant A's cluster acts with tenant A's own keys, in tenant A's account", async function () {
    const { kube, aws } = scenario;
    const cluster = await kube.cluster('tenant-a', 'payments');
    expect(cluster.status).to.deep.include({
      accountID: TENANT_A,
      principalARN: userArn(TENANT_A, 'tenant-a-automation'),
      identityChain: [{ kind: 'AWSClusterStaticIdentity', name: 'tenant-a' }],
    });
    for (const { arn } of resources.payments) expect(aws.tags(arn)).to.include({ team: 'payments' });
    const calls = aws.calls(({ account }) => account === TENANT_A);
    expect(calls.map(({ action }) => action)).to.include('ec2:CreateTags');
    expect(new Set(calls.map(({ accessKeyId }) => accessKeyId))).to.deep.equal(new Set([TENANT_A_KEY.accessKeyId]));
  });

  it("tenant B's cluster acts through the hub, with tenant B's externalID, in tenant B's account", async function () {
    // The externalID sent is the Secret's (externalIDSecretRef).
    const { kube, aws } = scenario;
    const cluster = await kube.cluster('tenant-b', 'analytics');
    expect(cluster.status?.accountID).to.equal(TENANT_B);
    expect(cluster.status?.principalARN).to.match(/^arn:aws:sts::333333333333:assumed-role\/tenant-b-admin\//);
    expect(cluster.status?.identityChain).to.deep.equal([
      { kind: 'AWSClusterRoleIdentity', name: 'tenant-b', roleARN: TENANT_B_ROLE },
      { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub', roleARN: HUB_ROLE },
      { kind: 'AWSClusterControllerIdentity', name: 'default' },
    ]);
    for (const { arn } of resources.analytics) expect(aws.tags(arn)).to.include({ team: 'analytics' });
    const assumed = aws.calls(({ action }) => action === 'sts:AssumeRole');
    expect(
      assumed.map(({ callerArn, detail, outcome }) => ({
        callerArn,
        role: detail?.['roleArn'],
        externalId: detail?.['externalId'],
        outcome,
      })),
    ).to.deep.equal([
      { callerArn: CONTROLLER_USER, role: HUB_ROLE, externalId: undefined, outcome: 'success' },
      {
        callerArn: assumed[0]!.detail?.['sessionArn'],
        role: TENANT_B_ROLE,
        externalId: EXTERNAL_ID.b,
        outcome: 'success',
      },
    ]);
    const calls = aws.calls(({ account }) => account === TENANT_B);
    expect(calls.map(({ action }) => action)).to.include('ec2:CreateTags');
    for (const call of calls) expect(call.callerArn, call.action).to.equal(cluster.status?.principalARN);
  });

  it('a namespace its own identity refuses: PrincipalUsageUnauthorized, nothing attempted', async function () {
    for (const name of ['borrowed-keys', 'borrowed-role']) {
      const cluster = await scenario.kube.cluster('tenant-c', name);
      expect(condition(cluster, 'PrincipalUsageAllowed'), name).to.include({
        status: 'False',
        reason: 'PrincipalUsageUnauthorized',
      });
      expect(condition(cluster, 'PrincipalUsageAllowed')?.message, name).to.include('tenant-c');
      expect(condition(cluster, 'PrincipalCredentialRetrieved'), name).to.include({
        status: 'Unknown',
        reason: 'NotAttempted',
      });
      expect(condition(cluster, 'TagsInSync'), name).to.include({
        status: 'Unknown',
        reason: 'CredentialsUnavailable',
      });
      expect(condition(cluster, 'Ready'), name).to.include({ status: 'False', reason: 'PrincipalUsageUnauthorized' });
      expect(cluster.status, name).not.to.have.any.keys('accountID', 'principalARN');
    }
  });

  it('a source deeper in the chain refuses: SourcePrincipalUsageUnauthorized', async function () {
    const cluster = await scenario.kube.cluster('tenant-c', 'own-chain');
    expect(condition(cluster, 'PrincipalUsageAllowed')).to.include({
      status: 'False',
      reason: 'SourcePrincipalUsageUnauthorized',
    });
    expect(condition(cluster, 'PrincipalUsageAllowed')?.message).to.include('keymaster-hub');
    expect(condition(cluster, 'Ready')).to.include({ status: 'False', reason: 'SourcePrincipalUsageUnauthorized' });
    expect(cluster.status).not.to.have.any.keys('accountID', 'principalARN');
  });

  it('AWS saw not one call made for a refused cluster, across resyncs', async function () {
    const { aws } = scenario;
    // A resync has run once drift on an allowed cluster is set back: the refused ones were looked at again.
    const drifted = resources.payments[0]!;
    await aws.setTags(drifted.arn, { ...drifted.tags, team: 'edited-by-hand' });
    await eventually(() => expect(aws.tags(drifted.arn)).to.include({ team: 'payments' }));

    const calls = aws.calls();
    const byLegacyKeys = (call: CallRecord) =>
      call.accessKeyId === LEGACY_KEY.accessKeyId || call.callerArn === userArn(TENANT_A, 'tenant-a-legacy');
    expect(calls.filter(byLegacyKeys), 'calls signed with the borrowed keys').to.be.empty;
    expect(aws.emulator.calls.summary().byCaller).not.to.have.key(userArn(TENANT_A, 'tenant-a-legacy'));
    const assumed = calls.filter(({ action }) => action === 'sts:AssumeRole').map(({ detail }) => detail?.['roleArn']);
    expect(assumed, 'one AssumeRole per link of the allowed chain, none for tenant C').to.deep.equal([
      HUB_ROLE,
      TENANT_B_ROLE,
    ]);
    expect(aws.emulator.world.sessions().map(({ roleArn }) => roleArn)).not.to.include(TENANT_C_ROLE);
    expect(
      calls.filter(({ account }) => account === TENANT_C),
      "calls in tenant C's account",
    ).to.be.empty;
    // Credentials the refused clusters could have borrowed would have found and tagged these.
    for (const { arn, tags } of [...resources.borrowedKeys, ...resources.borrowedRole, ...resources.ownChain])
      expect(aws.tags(arn), arn).to.deep.equal(tags);
  });

  it("refuses a namespace as soon as it loses the label a source's selector matches", async function () {
    await scenario.kube.patch(namespace('tenant-b'), { metadata: { labels: { 'keymaster.dev/tenant': null } } });
    await eventually(async () => {
      const cluster = await scenario.kube.cluster('tenant-b', 'analytics');
      expect(condition(cluster, 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'SourcePrincipalUsageUnauthorized',
      });
    });
  });
});
