import { API_VERSION, GROUP, VERSION, type AWSAccountBinding, type AWSClusterStaticIdentity } from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  CLAIMED_ACCOUNT,
  CLAIMED_AT,
  CONVERTED_FROM,
  SHARED_WITH,
} from '../../src/awsclusteridentity/legacy-account-claim.js';
import { TENANT_KEYS, condition, eventually, gone, startPlatform, type Platform } from './harness.js';

const STATIC = 'AWSClusterStaticIdentity';
const TENANT = 'keymaster.dev/tenant';
const ACCOUNT = '222222222222';
/** The resource of cluster `prod` in that account (harness.ts's world). */
const RESOURCE = `arn:aws:ec2:us-west-2:${ACCOUNT}:instance/i-0000000000000000b`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * A tenant's namespace and static identity, both labelled with the tenant. Every tenant's keys are of
 * one AWS account (222222222222): ops pointed them all there, by mistake or on purpose.
 */
const tenant = (name: string, annotations: Record<string, string> = {}) => [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [TENANT]: name } } },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-keys`, namespace: 'keymaster-system' },
    stringData: { AccessKeyID: TENANT_KEYS.accessKeyId, SecretAccessKey: TENANT_KEYS.secretAccessKey },
  },
  {
    apiVersion: API_VERSION,
    kind: STATIC,
    metadata: { name, labels: { [TENANT]: name }, annotations },
    spec: { secretRef: `${name}-keys`, allowedNamespaces: { list: [name] } },
  },
];
/** A tenant's cluster, by default named `prod` as the resource of the account is: it would tag it. */
const cluster = (namespace: string, name = 'prod') => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace },
  spec: { region: 'us-west-2', identityRef: { kind: STATIC, name: namespace }, additionalTags: { team: namespace } },
});
const binding = (tenants: string[]): AWSAccountBinding => ({
  apiVersion: API_VERSION,
  kind: 'AWSAccountBinding',
  metadata: { name: ACCOUNT },
  spec: { tenants },
});

const bindingTarget = { group: GROUP, version: VERSION, plural: 'awsaccountbindings', name: ACCOUNT };
const reasons = async (platform: Platform, namespace: string) =>
  (await platform.core.listNamespacedEvent({ namespace })).items.map(({ reason }) => reason);
const tagWrites = (platform: Platform) => {
  const { byAction } = platform.aws.calls.summary();
  return (byAction['tag:TagResources'] ?? 0) + (byAction['ec2:CreateTags'] ?? 0);
};
const tagsOf = (platform: Platform) => platform.aws.world.listResources().find(({ arn }) => arn === RESOURCE)!.tags;

describe('accounts bound to tenants by the platform (AWSAccountBinding), against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    // Tenant B's cluster comes first: the order of tenants' actions must not decide whose the account is.
    platform = await startPlatform([...tenant('tenant-b'), cluster('tenant-b'), ...tenant('tenant-a')]);
  });
  after(() => platform.stop());

  it('refuses an identity of a tenant in an account bound to no tenant, before any tag write: a condition and an event naming what the platform must declare', async () => {
    const message =
      'AWSClusterStaticIdentity/tenant-b (tenant tenant-b) resolves into AWS account 222222222222, which the platform ' +
      "has bound to no tenant: nothing is tagged with it. If the account is tenant-b's, the platform declares it: an " +
      'AWSAccountBinding named 222222222222 with tenant-b in spec.tenants.';
    const refused = await eventually(async () => {
      const found = await platform.cluster('tenant-b', 'prod');
      expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'AccountNotBound', message });
      return found;
    });
    expect(condition(refused, 'PrincipalUsageAllowed')).to.include({ status: 'False', reason: 'AccountNotBound' });
    expect(condition(refused, 'TagsInSync')).to.include({ status: 'Unknown', reason: 'AccountNotBound' });
    expect(refused.status?.accountID).to.equal(ACCOUNT);
    expect(refused.status?.tagging, 'no tag step').to.equal(undefined);
    await eventually(async () => {
      const events = await platform.core.listNamespacedEvent({ namespace: 'tenant-b' });
      expect(events.items.find(({ reason }) => reason === 'AccountNotBound')?.message).to.equal(message);
    });
    expect(tagWrites(platform), 'tag writes').to.equal(0);
    const identity = await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-b');
    expect(identity.metadata.annotations ?? {}, 'no claim by acting first').to.not.have.property(CLAIMED_ACCOUNT);
  });

  it("binds the account to the tenant the platform names, whichever tenant's cluster came first; the other is refused without being told whose it is", async () => {
    await platform.objects.create(cluster('tenant-a'));
    await platform.custom.createClusterCustomObject({ ...bindingTarget, body: binding(['tenant-a']) });
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-a', 'prod'), 'Ready')?.status).to.equal('True'),
    );
    expect(tagsOf(platform)).to.include({ team: 'tenant-a' });
    const refused = await eventually(async () => {
      const found = await platform.cluster('tenant-b', 'prod');
      expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'AccountOfAnotherTenant' });
      return found;
    });
    const message = condition(refused, 'Ready')!.message;
    expect(message).to.include('adds tenant-b to spec.tenants of AWSAccountBinding 222222222222');
    expect(message, 'the owner').to.not.include('tenant-a');
    expect(tagsOf(platform)).to.not.include({ team: 'tenant-b' });
  });

  it('lets another tenant in once the platform adds it to the binding, and out again once removed', async () => {
    const set = (tenants: string[]) =>
      platform.custom.patchClusterCustomObject({ ...bindingTarget, body: { spec: { tenants } } }, mergePatch);
    await set(['tenant-a', 'tenant-b']);
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-b', 'prod'), 'PrincipalUsageAllowed')?.status).to.equal('True'),
    );
    await set(['tenant-a']);
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-b', 'prod'), 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'AccountOfAnotherTenant',
      }),
    );
  });
});

describe('account claims of an earlier release, converted into AWSAccountBindings once, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  const claim = (at: string, extra: Record<string, string> = {}) => ({
    [CLAIMED_ACCOUNT]: ACCOUNT,
    [CLAIMED_AT]: at,
    ...extra,
  });
  const identity = (name: string) => platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', name);

  before(async () => {
    // As the earlier release left them: tenant A claimed the account first and shared it with tenant C;
    // tenant B's identity claimed it a moment later (two claims at once), and was refused.
    platform = await startPlatform([
      ...tenant('tenant-a', claim('2026-11-01T00:00:00Z', { [SHARED_WITH]: 'tenant-c' })),
      ...tenant('tenant-b', claim('2026-11-01T00:00:01Z')),
      ...tenant('tenant-c'),
      cluster('tenant-a'),
      cluster('tenant-b'),
      // Named otherwise: tenant A's cluster owns the name prod in the account.
      cluster('tenant-c', 'c-prod'),
    ]);
  });
  after(() => platform.stop());

  it('binds the account to the tenants the claim let in, says so on the binding and in an event, and removes the claims', async () => {
    const converted = await eventually(() => platform.get<AWSAccountBinding>('awsaccountbindings', ACCOUNT));
    expect(converted.spec.tenants).to.deep.equal(['tenant-a', 'tenant-c']);
    expect(converted.metadata.annotations).to.deep.equal({
      [CONVERTED_FROM]: 'AWSClusterStaticIdentity/tenant-a claimed it at 2026-11-01T00:00:00Z',
    });
    await eventually(async () => {
      for (const name of ['tenant-a', 'tenant-b'])
        expect((await identity(name)).metadata.annotations ?? {}, name).to.not.have.any.keys(
          CLAIMED_ACCOUNT,
          CLAIMED_AT,
        );
    });
    // The platform's own annotation stays: it is the platform's to remove.
    expect((await identity('tenant-a')).metadata.annotations).to.include({ [SHARED_WITH]: 'tenant-c' });
    const events = await platform.core.listNamespacedEvent({ namespace: 'default' });
    expect(
      events.items.filter(({ reason }) => reason === 'AccountClaimConverted').map(({ message }) => message),
    ).to.deep.equal([
      'The claim of AWS account 222222222222 by AWSClusterStaticIdentity/tenant-a is now AWSAccountBinding 222222222222, ' +
        'binding it to tenant-a, tenant-c: the platform edits that object to change which tenants may act in the account',
    ]);
  });

  it('keeps who may act in the account across the conversion: A and C act, B stays refused, none told AccountNotBound', async () => {
    for (const [namespace, name] of [
      ['tenant-a', 'prod'],
      ['tenant-c', 'c-prod'],
    ] as const)
      await eventually(async () =>
        expect(condition(await platform.cluster(namespace, name), 'Ready')?.status, namespace).to.equal('True'),
      );
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-b', 'prod'), 'Ready')).to.include({
        reason: 'AccountOfAnotherTenant',
      }),
    );
    for (const namespace of ['tenant-a', 'tenant-b', 'tenant-c'])
      expect(await reasons(platform, namespace), namespace).to.not.include('AccountNotBound');
  });

  it('converts once: a binding the platform deletes afterwards is not made again', async () => {
    await platform.custom.deleteClusterCustomObject(bindingTarget);
    await gone(() => platform.get('awsaccountbindings', ACCOUNT));
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-a', 'prod'), 'Ready')).to.include({ reason: 'AccountNotBound' }),
    );
    await platform.restart();
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-c', 'c-prod'), 'Ready')).to.include({
        reason: 'AccountNotBound',
      }),
    );
    expect(
      await platform.get('awsaccountbindings', ACCOUNT).then(
        () => 'made again',
        () => 'none',
      ),
    ).to.equal('none');
  });
});
