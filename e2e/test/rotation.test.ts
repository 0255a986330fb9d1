import { expect } from 'chai';
import type { CallRecord } from '@keymaster/aws-emulator';
import { MANAGEMENT, TAGGER, accessKey, clusterResources, controllerUser, userArn } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { clusterKey, condition, isReady } from './support/kube.js';
import { awsCluster, controllerIdentity, keysSecret, namespace, staticIdentity, staticRef } from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TENANT_A = '222222222222';
const TENANT_USER = userArn(TENANT_A, 'tenant-a-automation');
const OLD_KEY = accessKey('rotation/tenant-a/1');
const NEW_KEY = accessKey('rotation/tenant-a/2');
const payments = clusterResources(TENANT_A, 'us-west-2', 'payments', 3);
/** A cluster of another namespace and identity: its drift being set back shows that a resync ran. */
const witness = clusterResources(MANAGEMENT, 'us-east-1', 'witness', 1);
const secret = keysSecret('tenant-a-keys', OLD_KEY);
const identity = staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] });

const signedWith = (key: { accessKeyId: string }) => (call: CallRecord) => call.accessKeyId === key.accessKeyId;

describe('rotation and revocation of credentials', function () {
  let scenario: Scenario;

  /** Edits a tag by hand and waits until a resync sets it back. */
  async function witnessResync(): Promise<void> {
    const [resource] = witness;
    await scenario.aws.setTags(resource!.arn, { ...scenario.aws.tags(resource!.arn), team: 'edited-by-hand' });
    await eventually(() => expect(scenario.aws.tags(resource!.arn)).to.include({ team: 'ops' }));
  }

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser(TAGGER)], resources: witness },
          {
            id: TENANT_A,
            users: [{ name: 'tenant-a-automation', accessKeys: [OLD_KEY], allow: TAGGER }],
            resources: payments,
          },
        ],
      },
      objects: [
        namespace('tenant-a'),
        namespace('ops'),
        controllerIdentity({ list: ['ops'] }),
        secret,
        identity,
        awsCluster('tenant-a', 'payments', {
          region: 'us-west-2',
          identityRef: staticRef('tenant-a'),
          additionalTags: { team: 'payments' },
        }),
        awsCluster('ops', 'witness', { region: 'us-east-1', additionalTags: { team: 'ops' } }),
      ],
      syncPeriod: '2s',
    });
    await scenario.kube.untilReady(2);
  });

  after(stopScenarios);

  it('uses a rotated key from the first reconcile after the Secret changes', async function () {
    const { aws, kube } = scenario;
    expect(aws.calls(signedWith(OLD_KEY))).not.to.be.empty;
    await aws.addAccessKey(TENANT_USER, NEW_KEY);
    await kube.patch(secret, {
      stringData: { AccessKeyID: NEW_KEY.accessKeyId, SecretAccessKey: NEW_KEY.secretAccessKey },
    });
    await eventually(() => expect(aws.calls(signedWith(NEW_KEY))).not.to.be.empty);
    // Once the new key is in use, the old one never signs again.
    const calls = aws.calls();
    const firstNew = calls.findIndex(signedWith(NEW_KEY));
    expect(calls.slice(firstNew).filter(signedWith(OLD_KEY))).to.be.empty;

    // Retiring the old key on AWS breaks nothing: drift is still set back, with the new key.
    await aws.deleteAccessKey(OLD_KEY.accessKeyId);
    const [instance] = payments;
    await aws.setTags(instance!.arn, { ...aws.tags(instance!.arn), team: 'edited-by-hand' });
    await eventually(() => expect(aws.tags(instance!.arn)).to.include({ team: 'payments' }));
    const cluster = await kube.cluster('tenant-a', 'payments');
    expect(isReady(cluster)).to.equal(true);
    expect(cluster.status?.principalARN).to.equal(TENANT_USER);
    const writes = aws.calls(({ action, outcome }) => action === 'ec2:CreateTags' && outcome === 'success');
    expect(writes.at(-1)?.accessKeyId).to.equal(NEW_KEY.accessKeyId);
    expect(aws.emulator.calls.summary().errors).to.deep.equal({});
  });

  it('stops using an identity for a namespace removed from allowedNamespaces', async function () {
    const { aws, kube } = scenario;
    await kube.patch(identity, { spec: { allowedNamespaces: { list: [] } } });
    await eventually(async () => {
      const cluster = await kube.cluster('tenant-a', 'payments');
      expect(condition(cluster, 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'PrincipalUsageUnauthorized',
      });
      expect(condition(cluster, 'Ready')).to.include({ status: 'False' });
    });
    const before = aws.countBy(TENANT_USER);
    const [instance] = payments;
    await aws.setTags(instance!.arn, { ...aws.tags(instance!.arn), team: 'edited-by-hand' });

    // Two resyncs later, the witness's drift has been set back twice, and payments' not at all.
    await witnessResync();
    await witnessResync();
    expect(aws.countBy(TENANT_USER)).to.equal(before);
    expect(aws.tags(instance!.arn)).to.include({ team: 'edited-by-hand' });
  });

  it('keeps an identity while a cluster uses it, and deletes a refused cluster without its credentials', async function () {
    const { aws, kube } = scenario;
    await kube.delete(identity);
    await eventually(async () => {
      const blocked = (await kube.events('default', 'tenant-a')).filter(({ reason }) => reason === 'DeletionBlocked');
      // Counted, not named: identities' events are readable by every tenant; the log names the clusters.
      expect(blocked.map(({ message }) => message).join('\n'))
        .to.include('still used by 1 AWSCluster(s) in 1 namespace(s)')
        .and.not.include('payments');
    });
    const held = await kube.read<typeof identity>(identity);
    expect(held.metadata.deletionTimestamp).to.exist;

    // The cluster's namespace may no longer use the identity; deleting it still goes through, and then the identity goes.
    await kube.delete(clusterKey('tenant-a', 'payments'));
    await eventually(async () => {
      const names = (await kube.clusters()).map(({ metadata }) => metadata.name);
      expect(names).to.deep.equal(['witness']);
      const identities = await kube.list(identity.apiVersion, identity.kind);
      expect(identities).to.be.empty;
    });
    for (const { arn } of payments.slice(1)) expect(aws.tags(arn), 'tags stay on AWS').to.include({ team: 'payments' });
  });
});
