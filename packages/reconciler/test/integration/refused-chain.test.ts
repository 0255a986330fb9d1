import { API_VERSION, GROUP, VERSION } from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { TENANT_A_KEYS_SECRET, condition, eventually, startPlatform, staticTenantA, type Platform } from './harness.js';

const STATIC = 'AWSClusterStaticIdentity';
const ROLE = 'AWSClusterRoleIdentity';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('status after a refused chain, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      TENANT_A_KEYS_SECRET,
      staticTenantA(),
      {
        apiVersion: API_VERSION,
        kind: ROLE,
        metadata: { name: 'orphan' },
        spec: {
          roleARN: 'arn:aws:iam::222222222222:role/orphan',
          sourceIdentityRef: { kind: STATIC, name: 'gone' },
          allowedNamespaces: {},
        },
      },
      {
        apiVersion: API_VERSION,
        kind: 'AWSCluster',
        metadata: { name: 'prod', namespace: 'team-a' },
        spec: { region: 'us-west-2', identityRef: { kind: STATIC, name: 'tenant-a' } },
      },
    ]);
  });
  after(() => platform.stop());

  const patch = (plural: string, name: string, body: object, namespace?: string) =>
    namespace
      ? platform.custom.patchNamespacedCustomObject(
          { group: GROUP, version: VERSION, plural, name, namespace, body },
          mergePatch,
        )
      : platform.custom.patchClusterCustomObject({ group: GROUP, version: VERSION, plural, name, body }, mergePatch);

  it('claims no principal once the namespace is refused, and shows the chain that was checked', async () => {
    const ready = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(condition(found, 'Ready')?.status).to.equal('True');
      return found;
    });
    expect(ready.status).to.deep.include({
      accountID: '222222222222',
      principalARN: 'arn:aws:iam::222222222222:user/tenant-a',
      identityChain: [{ kind: STATIC, name: 'tenant-a' }],
    });

    await patch('awsclusterstaticidentities', 'tenant-a', { spec: { allowedNamespaces: { list: ['team-b'] } } });
    const refused = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(condition(found, 'PrincipalUsageAllowed')?.status).to.equal('False');
      return found;
    });
    expect(refused.status).to.not.have.any.keys('accountID', 'principalARN');
    expect(refused.status?.identityChain).to.deep.equal([{ kind: STATIC, name: 'tenant-a' }]);
    expect(condition(refused, 'Ready')?.status).to.equal('False');
  });

  it('shows a chain as far as it could be walked: the link found, then the missing one', async () => {
    await patch('awsclusters', 'prod', { spec: { identityRef: { kind: ROLE, name: 'orphan' } } }, 'team-a');
    const missing = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(condition(found, 'PrincipalCredentialRetrieved')?.reason).to.equal('IdentityNotFound');
      return found;
    });
    expect(missing.status).to.not.have.any.keys('accountID', 'principalARN');
    expect(missing.status?.identityChain).to.deep.equal([
      { kind: ROLE, name: 'orphan', roleARN: 'arn:aws:iam::222222222222:role/orphan' },
      { kind: STATIC, name: 'gone' },
    ]);
    expect(condition(missing, 'Ready')).to.include({ status: 'False', reason: 'IdentityNotFound' });
  });

  it('tells each refusal once by a Warning event, at the transition, not at every resync', async () => {
    const warnings = async () =>
      (await platform.core.listNamespacedEvent({ namespace: 'team-a' })).items.filter(
        ({ type, involvedObject }) => type === 'Warning' && involvedObject.name === 'prod',
      );
    const byReason = await eventually(async () => {
      const found = new Map((await warnings()).map((event) => [event.reason, event.message]));
      expect([...found.keys()].sort()).to.deep.equal(['IdentityNotFound', 'PrincipalUsageUnauthorized']);
      return found;
    });
    expect(byReason.get('PrincipalUsageUnauthorized')).to.include('may not use AWSClusterStaticIdentity/tenant-a');
    expect(byReason.get('IdentityNotFound')).to.include('AWSClusterStaticIdentity/gone not found');

    // Resyncs (every 2 s) find the same refusal: no new event, no count raised.
    const reconciles = async () =>
      (await platform.controller.metrics.runtime.reconcileTotal.get()).values
        .filter(({ labels }) => labels['controller'] === 'awscluster')
        .reduce((sum, { value }) => sum + value, 0);
    const before = await reconciles();
    await eventually(async () => expect(await reconciles()).to.be.at.least(before + 2), 20_000);
    expect((await warnings()).map(({ reason, count }) => `${reason}=${count}`).sort()).to.deep.equal([
      'IdentityNotFound=1',
      'PrincipalUsageUnauthorized=1',
    ]);
  });
});
