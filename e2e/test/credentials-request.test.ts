import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand, TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import type { AWSCredentialsRequest, AWSCredentialsRequestSpec } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import type { V1Secret } from '@kubernetes/client-node';
import { CONTROLLER_USER, MANAGEMENT, TAGGER, clusterResources, controllerUser, roleArn } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { condition } from './support/kube.js';
import { controllerIdentity, credentialsRequest, namespace, roleIdentity, roleRef } from './support/objects.js';
import type { TenantUser } from './support/rbac-management-cluster.js';
import { credentialVending, namespaceOwnerRights } from './support/rbac-manifests.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';
import { AWS_CLIS, environmentKeys, mountedFile, runAwsCli, sdkClients, secretData } from './support/workload.js';

/**
 * AWSCredentialsRequest end to end (issue 16): tenants under the tenant RBAC of docs/security.md (and
 * the rights a namespace's owners usually have: its Secrets, and requests) ask the real `keymaster run`
 * for credentials; their workloads use the Secret with the real AWS SDK and the AWS CLI against the
 * aws-emulator, which enforces the session policy as AWS does.
 */

const REGION = 'us-west-2';
const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';
const ROLE = {
  a: roleArn(TENANT_A, 'tenant-a-workloads'),
  aNext: roleArn(TENANT_A, 'tenant-a-next'),
  b: roleArn(TENANT_B, 'tenant-b-workloads'),
};
const resources = {
  a: clusterResources(TENANT_A, REGION, 'payments', 2),
  b: clusterResources(TENANT_B, REGION, 'analytics', 2),
};
const ONLY_GET_RESOURCES = [{ effect: 'Allow' as const, actions: ['tag:GetResources'], resources: ['*'] }];
const SESSION_TOKEN_PREFIX = 'IQoJb3JpZ2lu';
/** The labels of the requests' controller in controller-runtime's metrics. */
const CREDENTIALS_CONTROLLER = { controller: 'awscredentialsrequest' };

/** Each tenant's workload role: it may do much more (tag, assume another role) than its requests ask for. */
const world: World = {
  accounts: [
    { id: MANAGEMENT, users: [controllerUser()] },
    {
      id: TENANT_A,
      roles: [
        { name: 'tenant-a-workloads', trust: [{ principal: CONTROLLER_USER }], allow: [...TAGGER, 'sts:AssumeRole'] },
        { name: 'tenant-a-next', trust: [{ principal: ROLE.a }], allow: TAGGER },
      ],
      resources: resources.a,
    },
    {
      id: TENANT_B,
      roles: [{ name: 'tenant-b-workloads', trust: [{ principal: CONTROLLER_USER }], allow: TAGGER }],
      resources: resources.b,
    },
  ],
};

/** A tenant's workload role, used by that tenant's namespace and vended to it (credentialVending). */
const workloadsIdentity = (tenant: string, roleARN: string) =>
  roleIdentity(`${tenant}-workloads`, {
    roleARN,
    allowedNamespaces: { list: [tenant] },
    credentialVending: { allowedNamespaces: { list: [tenant] } },
  });

const secretKey = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
});
const requestKey = (namespace: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name, namespace },
});

/** The HTTP status of a refused Kubernetes call (fails the test when it succeeded). */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
  expect.fail('the call succeeded, but it should have been refused');
}

async function failureOf(call: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  expect.fail('the AWS call succeeded, but it should have been refused');
}

describe('AWSCredentialsRequest: workload credentials narrowed by a session policy', function () {
  let tenancy: Tenancy;
  let tenantA: TenantUser;
  let tenantB: TenantUser;
  /** Every key and secret a request's Secret held during the run: none may show up anywhere else. */
  const issued = new Set<string>();

  const request = (tenant: TenantUser, name: string) =>
    tenant.kube.read<AWSCredentialsRequest>(requestKey(tenant.namespace, name));
  const secret = (tenant: TenantUser, name: string) => tenant.kube.read<V1Secret>(secretKey(tenant.namespace, name));
  /** Waits until the request is Ready; returns it with its Secret's data (remembered as issued). */
  async function untilServed(tenant: TenantUser, name: string) {
    const served = await eventually(async () => {
      const current = await request(tenant, name);
      expect(condition(current, 'Ready')?.status, JSON.stringify(current.status?.conditions)).to.equal('True');
      return current;
    });
    const data = secretData(await secret(tenant, served.spec.secretRef.name));
    for (const value of Object.values(data)) issued.add(value);
    return { request: served, data };
  }
  const ask = (tenant: TenantUser, name: string, spec: AWSCredentialsRequestSpec) =>
    tenant.kube.create(credentialsRequest(tenant.namespace, name, spec));

  before(async function () {
    tenancy = await startTenancy({
      world,
      tenants: [{ name: 'tenant-a' }, { name: 'tenant-b' }],
      objects: [
        namespace('tenant-a'),
        namespace('tenant-b'),
        ...namespaceOwnerRights(['tenant-a', 'tenant-b']),
        // The root of both role identities' chains: the controller's own keys.
        controllerIdentity({ list: ['tenant-a', 'tenant-b'] }),
        workloadsIdentity('tenant-a', ROLE.a),
        workloadsIdentity('tenant-b', ROLE.b),
        // Both namespaces have credential vending (docs/credentials.md).
        await credentialVending('tenant-a'),
        await credentialVending('tenant-b'),
      ],
      syncPeriod: '2s',
      // The controller's time follows the aws-emulator's, which the renewal test moves by 10 hours.
      preload: [fileURLToPath(new URL('./support/follow-aws-emulator-clock.ts', import.meta.url))],
    });
    tenantA = tenancy.tenant('tenant-a');
    tenantB = tenancy.tenant('tenant-b');
    // Tenant B's own request and a Secret of its own (a database password), the targets of tenant A's attempts.
    await tenantB.kube.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'database', namespace: 'tenant-b' },
      stringData: { password: 'tenant-b-database-password' },
    });
    await ask(tenantB, 'reports', {
      identityRef: roleRef('tenant-b-workloads'),
      statements: ONLY_GET_RESOURCES,
      secretRef: { name: 'reports-aws' },
    });
    await ask(tenantA, 'reports', {
      identityRef: roleRef('tenant-a-workloads'),
      statements: ONLY_GET_RESOURCES,
      secretRef: { name: 'reports-aws' },
    });
    await untilServed(tenantB, 'reports');
  });

  after(stopTenancies);

  describe('what a workload of tenant A can do with its Secret', () => {
    it('serves a workload of tenant A credentials that do tag:GetResources in its account and nothing else (AWS SDK)', async function () {
      const { request: served, data } = await untilServed(tenantA, 'reports');
      expect(served.status).to.include({ accountID: TENANT_A });
      expect(served.status?.principalARN).to.match(
        new RegExp(`^arn:aws:sts::${TENANT_A}:assumed-role/tenant-a-workloads/`),
      );
      const keys = environmentKeys(data);
      expect(keys.accessKeyId).to.match(/^ASIA/);
      const aws = sdkClients(tenancy.aws.emulator.url, keys, REGION);

      const identity = await aws.sts.send(new GetCallerIdentityCommand({}));
      expect(identity).to.include({ Account: TENANT_A, Arn: served.status?.principalARN });
      const found = await aws.tagging.send(new GetResourcesCommand({}));
      expect(found.ResourceTagMappingList?.map(({ ResourceARN }) => ResourceARN)).to.have.members(
        resources.a.map(({ arn }) => arn),
      );

      const refusedBy = (action: string, resource?: string) =>
        `User: ${served.status?.principalARN} is not authorized to perform: ${action}${resource ? ` on resource: ${resource}` : ''} because no session policy allows the ${action} action`;
      const [instance] = resources.a;
      const tagWrite = await failureOf(
        aws.tagging.send(new TagResourcesCommand({ ResourceARNList: [instance!.arn], Tags: { team: 'a' } })),
      );
      expect([tagWrite.name, tagWrite.message]).to.deep.equal(['AccessDeniedException', refusedBy('tag:TagResources')]);
      const ec2Write = await failureOf(
        aws.ec2.send(
          new CreateTagsCommand({ Resources: [instance!.arn.split('/')[1]!], Tags: [{ Key: 'team', Value: 'a' }] }),
        ),
      );
      expect([ec2Write.name, ec2Write.message]).to.deep.equal([
        'UnauthorizedOperation',
        `You are not authorized to perform this operation. ${refusedBy('ec2:CreateTags', instance!.arn)}`,
      ]);
      // The role may assume tenant-a-next; the session may not.
      const onwards = await failureOf(
        aws.sts.send(new AssumeRoleCommand({ RoleArn: ROLE.aNext, RoleSessionName: 'onwards' })),
      );
      expect([onwards.name, onwards.$metadata?.httpStatusCode]).to.deep.equal(['AccessDenied', 403]);
      expect(onwards.message).to.equal(refusedBy('sts:AssumeRole', ROLE.aNext));
      // Tenant B's resources are out of reach: another account.
      expect(tenancy.aws.tags(resources.b[0]!.arn)).to.not.have.property('team');
    });

    for (const cli of AWS_CLIS) {
      it(`serves the same with the ${cli.name}: the Secret as environment variables, and as a mounted credentials file`, async function () {
        this.timeout(60_000);
        const { data } = await untilServed(tenantA, 'reports');
        const url = tenancy.aws.emulator.url;
        const read = await runAwsCli(cli.command, url, data, ['resourcegroupstaggingapi', 'get-resources']);
        expect(read.code, read.stderr).to.equal(0);
        const arns = (JSON.parse(read.stdout) as { ResourceTagMappingList: { ResourceARN: string }[] })
          .ResourceTagMappingList;
        expect(arns.map(({ ResourceARN }) => ResourceARN)).to.have.members(resources.a.map(({ arn }) => arn));
        const write = await runAwsCli(cli.command, url, data, [
          'resourcegroupstaggingapi',
          'tag-resources',
          '--resource-arn-list',
          resources.a[0]!.arn,
          '--tags',
          'team=a',
        ]);
        expect(write.code).to.not.equal(0);
        expect(write.stderr).to.contain('(AccessDeniedException)').and.contain('because no session policy allows');

        // The same request's credentials as a shared credentials file (format CredentialsFile).
        const name = `reports-file-${AWS_CLIS.indexOf(cli)}`;
        await ask(tenantA, name, {
          identityRef: roleRef('tenant-a-workloads'),
          statements: ONLY_GET_RESOURCES,
          secretRef: { name: `${name}-aws` },
          format: 'CredentialsFile',
        });
        const file = (await untilServed(tenantA, name)).data['credentials']!;
        expect(file).to.match(/^\[default\]\naws_access_key_id = ASIA/);
        const mounted = await mountedFile(file);
        try {
          const env = { AWS_SHARED_CREDENTIALS_FILE: mounted.path };
          const who = await runAwsCli(cli.command, url, env, ['sts', 'get-caller-identity']);
          expect(who.code, who.stderr).to.equal(0);
          expect((JSON.parse(who.stdout) as { Account: string }).Account).to.equal(TENANT_A);
          const instance = resources.a[0]!.arn.split('/')[1]!;
          const ec2 = await runAwsCli(cli.command, url, env, [
            'ec2',
            'create-tags',
            '--resources',
            instance,
            '--tags',
            'Key=team,Value=a',
          ]);
          expect(ec2.stderr)
            .to.contain('(UnauthorizedOperation)')
            .and.contain('because no session policy allows the ec2:CreateTags action');
        } finally {
          await mounted.remove();
        }
      });
    }
  });
  it('says so when AWS refuses the session policy as too large once packed, and writes nothing', async () => {
    // 30 actions: far under the 2048 characters of the plaintext limit, over AWS's packed budget.
    const actions = Array.from({ length: 30 }, (_, i) => `ec2:DescribeThing${i}`);
    await ask(tenantA, 'too-large', {
      identityRef: roleRef('tenant-a-workloads'),
      statements: [{ effect: 'Allow', actions, resources: ['*'] }],
      secretRef: { name: 'too-large-aws' },
    });
    const refused = await eventually(async () => {
      const current = await request(tenantA, 'too-large');
      expect(condition(current, 'PrincipalCredentialRetrieved')?.status).to.equal('False');
      return current;
    });
    expect(condition(refused, 'Ready')?.status).to.equal('False');
    const message = condition(refused, 'PrincipalCredentialRetrieved')?.message ?? '';
    expect(message, message)
      .to.contain('PackedPolicyTooLarge')
      .and.match(/Packed policy consumes 1\d\d% of allotted space/);
    const written = await secret(tenantA, 'too-large-aws').catch(() => undefined);
    expect(Object.keys(written?.data ?? {})).to.deep.equal([]);
    // The same policy is refused again whoever asks: resyncs do not ask AWS again until the request changes.
    const refusedCalls = () =>
      tenancy.aws.calls((call) => call.action === 'sts:AssumeRole' && call.errorCode === 'PackedPolicyTooLarge').length;
    expect(refusedCalls()).to.equal(1);
    const reconciles = () => tenancy.controller.metric('controller_runtime_reconcile_total', CREDENTIALS_CONTROLLER);
    const enough = (await reconciles()) + 6;
    await eventually(async () => expect(await reconciles()).to.be.at.least(enough));
    expect(refusedCalls()).to.equal(1);
  });

  describe('a hostile tenant A cannot reach tenant B through a request', () => {
    it('cannot create a request in, or read a Secret of, tenant B’s namespace (RBAC)', async () => {
      const inB = credentialsRequest('tenant-b', 'stolen', {
        identityRef: roleRef('tenant-a-workloads'),
        statements: ONLY_GET_RESOURCES,
        secretRef: { name: 'stolen' },
      });
      expect(await statusOf(tenantA.kube.create(inB))).to.equal(403);
      expect(await statusOf(tenantA.kube.read(secretKey('tenant-b', 'reports-aws')))).to.equal(403);
      expect(await statusOf(tenantA.kube.read(secretKey('tenant-b', 'database')))).to.equal(403);
      expect(await statusOf(tenantA.kube.list('v1', 'Secret', 'tenant-b'))).to.equal(403);
    });

    it('cannot name another namespace in secretRef: there is no field for it, and a name is only a name', async () => {
      // A namespace field is not part of the schema: the API server drops it, the Secret lands in tenant-a.
      await tenantA.kube.create({
        ...credentialsRequest('tenant-a', 'sneaky', {
          identityRef: roleRef('tenant-a-workloads'),
          statements: ONLY_GET_RESOURCES,
          secretRef: { name: 'database', namespace: 'tenant-b' } as AWSCredentialsRequestSpec['secretRef'],
        }),
      });
      const { request: sneaky } = await untilServed(tenantA, 'sneaky');
      expect(sneaky.spec.secretRef).to.deep.equal({ name: 'database' });
      expect(secretData(await secret(tenantA, 'database'))).to.have.property('AWS_ACCESS_KEY_ID');
      // Names that would reach elsewhere are no DNS subdomain names: refused at admission.
      for (const [index, name] of ['tenant-b/database', '../tenant-b/database', 'database.tenant-b.svc/x'].entries()) {
        const status = await statusOf(
          ask(tenantA, `path-${index}`, {
            identityRef: roleRef('tenant-a-workloads'),
            statements: ONLY_GET_RESOURCES,
            secretRef: { name },
          }),
        );
        expect(status, name).to.equal(422);
      }
      // Tenant B's Secrets are as they were.
      const ops = tenancy.ops;
      const database = await ops.read<V1Secret>(secretKey('tenant-b', 'database'));
      expect(secretData(database)).to.deep.equal({ password: 'tenant-b-database-password' });
      expect(database.metadata?.ownerReferences).to.equal(undefined);
    });

    it('cannot repoint a served request at another Secret: secretRef.name is immutable', async () => {
      await untilServed(tenantA, 'reports');
      const status = await statusOf(
        tenantA.kube.patch(requestKey('tenant-a', 'reports'), { spec: { secretRef: { name: 'database' } } }),
      );
      expect(status).to.equal(422);
      expect((await request(tenantA, 'reports')).spec.secretRef).to.deep.equal({ name: 'reports-aws' });
    });

    it('cannot make the controller take over a Secret it did not create, forged owner reference or not', async () => {
      // A Secret tenant A made itself, with the name its next request will ask for.
      await tenantA.kube.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'taken', namespace: 'tenant-a' },
        stringData: { note: 'mine' },
      });
      await ask(tenantA, 'takeover', {
        identityRef: roleRef('tenant-a-workloads'),
        statements: ONLY_GET_RESOURCES,
        secretRef: { name: 'taken' },
      });
      await eventually(async () => {
        const takeover = await request(tenantA, 'takeover');
        expect(condition(takeover, 'SecretWritten')).to.include({ status: 'False', reason: 'SecretNotOwned' });
        expect(condition(takeover, 'Ready')?.status).to.equal('False');
      });
      expect(secretData(await secret(tenantA, 'taken'))).to.deep.equal({ note: 'mine' });

      // A Secret in tenant A claiming, by label and owner reference, to be tenant B's request's.
      const tenantBRequest = await tenancy.ops.read<AWSCredentialsRequest>(requestKey('tenant-b', 'reports'));
      const before = secretData(await tenancy.ops.read<V1Secret>(secretKey('tenant-b', 'reports-aws')));
      await tenantA.kube.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'reports-aws-b',
          namespace: 'tenant-a',
          labels: { 'keymaster.dev/credentials-request': 'reports' },
          ownerReferences: [
            {
              apiVersion: API_VERSION,
              kind: 'AWSCredentialsRequest',
              name: 'reports',
              uid: tenantBRequest.metadata.uid!,
              controller: true,
            },
          ],
        },
        stringData: { decoy: 'yes' },
      });
      // A few resyncs later, nothing moved: the decoy got no credentials, tenant B's Secret kept its own.
      const reconciles = () => tenancy.controller.metric('controller_runtime_reconcile_total', CREDENTIALS_CONTROLLER);
      const enough = (await reconciles()) + 6;
      await eventually(async () => expect(await reconciles()).to.be.at.least(enough));
      // The garbage collector may delete the decoy (its owner does not exist in tenant-a); it never holds credentials.
      const decoy = await secret(tenantA, 'reports-aws-b').catch(() => undefined);
      if (decoy) expect(secretData(decoy)).to.deep.equal({ decoy: 'yes' });
      const after = secretData(await tenancy.ops.read<V1Secret>(secretKey('tenant-b', 'reports-aws')));
      expect(after).to.deep.equal(before);
    });

    it('cannot ask for the controller’s own keys (passthrough): refused at admission', async () => {
      const status = await statusOf(
        ask(tenantA, 'passthrough', {
          identityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
          statements: ONLY_GET_RESOURCES,
          secretRef: { name: 'passthrough-aws' },
        }),
      );
      expect(status).to.equal(422);
    });

    it('cannot borrow tenant B’s identity: refused before any AWS call, nothing written', async () => {
      const assumedB = () =>
        tenancy.aws.calls((call) => call.action === 'sts:AssumeRole' && call.detail?.['roleArn'] === ROLE.b).length;
      const callsBefore = assumedB();
      await ask(tenantA, 'borrowed', {
        identityRef: roleRef('tenant-b-workloads'),
        statements: ONLY_GET_RESOURCES,
        secretRef: { name: 'borrowed-aws' },
      });
      const borrowed = await eventually(async () => {
        const current = await request(tenantA, 'borrowed');
        expect(condition(current, 'PrincipalUsageAllowed')?.status).to.equal('False');
        return current;
      });
      expect(condition(borrowed, 'Ready')?.status).to.equal('False');
      expect(condition(borrowed, 'PrincipalUsageAllowed')?.message).to.contain('tenant-a');
      expect(assumedB()).to.equal(callsBefore);
      const written = await tenantA.kube.read<V1Secret>(secretKey('tenant-a', 'borrowed-aws')).catch(() => undefined);
      expect(Object.keys(written?.data ?? {})).to.deep.equal([]);
    });

    it('deleting its request removes its own Secret only, never tenant B’s of the same name', async () => {
      await untilServed(tenantA, 'reports');
      await tenantA.kube.delete(requestKey('tenant-a', 'sneaky'));
      await eventually(async () => expect(await statusOf(secret(tenantA, 'database'))).to.equal(404));
      expect(secretData(await tenancy.ops.read<V1Secret>(secretKey('tenant-b', 'database')))).to.deep.equal({
        password: 'tenant-b-database-password',
      });
      await untilServed(tenantB, 'reports');
    });
  });

  describe('renewed on AWS’s clock', () => {
    it('renews across 10 hours of AWS time with no gap: what the Secret holds is valid at every moment', async function () {
      this.timeout(600_000);
      const { emulator } = tenancy.aws;
      await ask(tenantA, 'renewed', {
        identityRef: roleRef('tenant-a-workloads'),
        statements: [{ sid: 'Renewed', ...ONLY_GET_RESOURCES[0]! }],
        durationSeconds: 3600,
        secretRef: { name: 'renewed-aws' },
      });
      const first = environmentKeys((await untilServed(tenantA, 'renewed')).data);
      const seen = new Set([first.accessKeyId]);
      // Steps shorter than the half-life the controller renews at (30 of 60 minutes): between two renewals
      // there is always a moment where the Secret's keys have at most a step left; they must still work.
      const stepSeconds = 20 * 60;
      for (let elapsed = stepSeconds; elapsed <= 10 * 3600; elapsed += stepSeconds) {
        emulator.clock.advance(stepSeconds);
        const held = environmentKeys(secretData(await secret(tenantA, 'renewed-aws')));
        const who = await sdkClients(emulator.url, held, REGION).sts.send(new GetCallerIdentityCommand({}));
        expect(who.Account, `after ${elapsed / 60} minutes`).to.equal(TENANT_A);
        // The controller, following AWS's clock, renews once the keys are past half their life.
        await eventually(async () => {
          const current = await request(tenantA, 'renewed');
          expect(condition(current, 'Ready')?.status).to.equal('True');
          expect(Date.parse(current.status!.nextRenewalTime!)).to.be.above(emulator.clock.nowMs());
        });
        const renewed = secretData(await secret(tenantA, 'renewed-aws'));
        for (const value of Object.values(renewed)) issued.add(value);
        seen.add(environmentKeys(renewed).accessKeyId);
      }
      // A renewal every 40 minutes of AWS time (the step after half-life): 15 over 10 hours.
      expect(seen.size).to.be.at.least(15);
      // The first keys are long expired in AWS's eyes: the clock really moved.
      const expired = await failureOf(
        sdkClients(emulator.url, first, REGION).sts.send(new GetCallerIdentityCommand({})),
      );
      expect(expired.name).to.equal('ExpiredToken');
    });
  });

  describe('taken back, and never shown', () => {
    it('revokes within one reconcile when the identity stops allowing the namespace: the Secret is emptied and the request says why', async function () {
      const { request: served } = await untilServed(tenantA, 'reports');
      const renewalsBefore = tenancy.aws.calls(
        (call) => call.action === 'sts:AssumeRole' && call.detail?.['roleArn'] === ROLE.a,
      ).length;
      await tenancy.ops.patch(
        { apiVersion: API_VERSION, kind: 'AWSClusterRoleIdentity', metadata: { name: 'tenant-a-workloads' } },
        { spec: { allowedNamespaces: { list: ['tenant-z'] } } },
      );
      const revoked = await eventually(async () => {
        expect(secretData(await secret(tenantA, 'reports-aws'))).to.deep.equal({});
        const current = await request(tenantA, 'reports');
        expect(condition(current, 'Ready')).to.include({ status: 'False' });
        return current;
      });
      expect(condition(revoked, 'PrincipalUsageAllowed')?.status).to.equal('False');
      expect(condition(revoked, 'SecretWritten')).to.include({ status: 'False', reason: 'CredentialsRevoked' });
      expect(condition(revoked, 'SecretWritten')?.message).to.contain('tenant-a');
      // Recorded right after the status.
      await eventually(async () => {
        const events = await tenancy.ops.events('tenant-a', 'reports');
        expect(events.map(({ reason }) => reason)).to.include('CredentialsRevoked');
      });
      // Revoking asked AWS for nothing.
      expect(
        tenancy.aws.calls((call) => call.action === 'sts:AssumeRole' && call.detail?.['roleArn'] === ROLE.a).length,
      ).to.equal(renewalsBefore);
      expect(served.metadata.uid).to.equal(revoked.metadata.uid);

      // Allowed again: served again, with new keys.
      await tenancy.ops.patch(
        { apiVersion: API_VERSION, kind: 'AWSClusterRoleIdentity', metadata: { name: 'tenant-a-workloads' } },
        { spec: { allowedNamespaces: { list: ['tenant-a'] } } },
      );
      await untilServed(tenantA, 'reports');
    });

    it('never shows a key, secret or session token in the controller’s logs, events, request status or metrics', async function () {
      const { ops, controller } = tenancy;
      const requests = [
        ...(await ops.list<AWSCredentialsRequest>(API_VERSION, 'AWSCredentialsRequest', 'tenant-a')),
        ...(await ops.list<AWSCredentialsRequest>(API_VERSION, 'AWSCredentialsRequest', 'tenant-b')),
      ];
      const events = (
        await Promise.all(requests.map(({ metadata }) => ops.events(metadata.namespace!, metadata.name!)))
      ).flat();
      const texts = {
        logs: controller.output.join('\n'),
        events: events.map((event) => `${event.reason ?? ''} ${event.message ?? ''}`).join('\n'),
        status: JSON.stringify(requests.map(({ status }) => status)),
        metrics: await controller.metrics(),
      };
      expect(events.map(({ reason }) => reason)).to.include('CredentialsWritten');
      const secrets = [...issued].flatMap((value) =>
        value.startsWith('[default]') ? [...value.matchAll(/= (\S+)/g)].map((match) => match[1]!) : [value],
      );
      const keys = secrets.filter((value) => value.length >= 16);
      expect(keys.filter((value) => value.startsWith('ASIA')).length).to.be.at.least(3);
      for (const [where, text] of Object.entries(texts)) {
        for (const value of keys) expect(text.includes(value), `${where} shows ${value.slice(0, 4)}…`).to.equal(false);
        expect(text, where).to.not.include(SESSION_TOKEN_PREFIX);
      }
      expect(texts.metrics).to.match(/keymaster_sts_calls_total\{[^}]*\}/);
    });
  });
});
