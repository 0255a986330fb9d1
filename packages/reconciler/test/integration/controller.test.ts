import { API_VERSION, type AWSClusterControllerIdentity, type AWSClusterStaticIdentity } from '@keymaster/api';
import { expect } from 'chai';
import { CLUSTER_FINALIZER } from '../../src/awscluster/reconciler.js';
import { IDENTITY_FINALIZER } from '../../src/identity/reconciler.js';
import { TENANT_KEYS, condition, eventually, gone, startPlatform, type Platform } from './harness.js';

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const cluster = (
  ns: string,
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace: ns, ...metadata },
  spec: { region: 'us-west-2', ...spec },
});
const staticIdentity = {
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name: 'tenant-a' },
  spec: { secretRef: 'tenant-a-keys', allowedNamespaces: {} },
};
const tenantSecret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'tenant-a-keys', namespace: 'keymaster-system' },
  stringData: { AccessKeyID: TENANT_KEYS.accessKeyId, SecretAccessKey: TENANT_KEYS.secretAccessKey },
};
const STATIC_REF = { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' };

describe('the controller, in-process, against both emulators', function () {
  this.timeout(60_000);

  describe('a cluster of the controller identity, with no identity created yet', () => {
    let platform: Platform;
    before(async () => {
      platform = await startPlatform([
        namespace('team-x'),
        cluster('team-x', 'prod', { additionalTags: { team: 'x' } }),
        cluster('team-x', 'paused', {}, { annotations: { 'cluster.x-k8s.io/paused': '' } }),
      ]);
    });
    after(() => platform.stop());

    it('creates AWSClusterControllerIdentity "default" allowing every namespace (AutoControllerIdentityCreator), and the cluster gets Ready', async () => {
      const identity = await eventually(() =>
        platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default'),
      );
      expect(identity.spec).to.deep.equal({ allowedNamespaces: {} });
      const ready = await eventually(async () => {
        const found = await platform.cluster('team-x', 'prod');
        expect(condition(found, 'Ready')?.status).to.equal('True');
        return found;
      });
      expect(ready.status).to.include({
        accountID: '111111111111',
        principalARN: 'arn:aws:iam::111111111111:user/keymaster-controller',
        observedGeneration: 1,
      });
      expect(ready.metadata.finalizers).to.deep.equal([CLUSTER_FINALIZER]);
    });

    it('leaves a paused cluster alone: no finalizer, no status', async () => {
      await eventually(async () =>
        expect(condition(await platform.cluster('team-x', 'prod'), 'Ready')?.status).to.equal('True'),
      );
      const paused = await platform.cluster('team-x', 'paused');
      expect(paused.status).to.equal(undefined);
      expect(paused.metadata.finalizers).to.equal(undefined);
    });

    it('keeps the identity in use while clusters use it (paused ones too), and lists them in status', async () => {
      const identity = await eventually(async () => {
        const found = await platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default');
        expect(found.metadata.finalizers).to.deep.equal([IDENTITY_FINALIZER]);
        expect(found.status).to.deep.include({
          clusterCount: 2,
          clusters: ['team-x/paused', 'team-x/prod'],
          accountID: '111111111111',
        });
        return found;
      });
      expect(identity.status?.principalARN).to.equal('arn:aws:iam::111111111111:user/keymaster-controller');
    });

    it('deleting the clusters releases their finalizers and leaves the tags on AWS; the identity is then free', async () => {
      const tagged = platform.aws.world.listResources().find(({ arn }) => arn.includes('i-0000000000000000a'))!;
      expect(tagged.tags).to.have.property('sigs.k8s.io/cluster-api-provider-aws/cluster/prod', 'owned');
      await platform.objects.delete(cluster('team-x', 'prod'));
      await platform.objects.delete(cluster('team-x', 'paused'));
      await gone(() => platform.cluster('team-x', 'prod'));
      const after = platform.aws.world.listResources().find(({ arn }) => arn.includes('i-0000000000000000a'))!;
      expect(after.tags, 'the tags Keymaster applied stay').to.include({ team: 'x' });
      const identity = await eventually(async () => {
        const found = await platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default');
        expect(found.metadata.finalizers ?? []).to.deep.equal([]);
        return found;
      });
      expect(identity.status?.clusterCount).to.equal(0);
    });
  });

  describe('a static identity shared by clusters of two namespaces', () => {
    let platform: Platform;
    before(async () => {
      platform = await startPlatform([
        namespace('team-a'),
        namespace('team-b'),
        tenantSecret,
        staticIdentity,
        cluster('team-a', 'prod', { identityRef: STATIC_REF }),
        cluster('team-b', 'prod', { identityRef: STATIC_REF }),
        cluster('team-b', 'quiet', { identityRef: STATIC_REF, clusterName: 'quiet', tagging: { paused: true } }),
      ]);
    });
    after(() => platform.stop());

    it('warns both clusters that use one clusterName in one account, naming the other', async () => {
      const [a, b] = await eventually(async () => {
        const found = await Promise.all([platform.cluster('team-a', 'prod'), platform.cluster('team-b', 'prod')]);
        for (const item of found) expect(condition(item, 'ClusterNameUnique')?.status).to.equal('False');
        return found;
      });
      expect(condition(a, 'ClusterNameUnique')).to.include({ reason: 'DuplicateClusterName' });
      expect(condition(a, 'ClusterNameUnique')?.message).to.include('team-b/prod').and.include('222222222222');
      expect(condition(b, 'ClusterNameUnique')?.message).to.include('team-a/prod');
      expect(condition(a, 'Ready')?.status, 'a warning, not a failure').to.equal('True');
    });

    it('clears the warning on the survivor when the other is deleted', async () => {
      await platform.objects.delete(cluster('team-a', 'prod'));
      await eventually(async () =>
        expect(condition(await platform.cluster('team-b', 'prod'), 'ClusterNameUnique')?.status).to.equal('True'),
      );
    });

    it('reports tagging paused without failing the identity checks', async () => {
      const quiet = await eventually(async () => {
        const found = await platform.cluster('team-b', 'quiet');
        expect(condition(found, 'TagsInSync')?.reason).to.equal('TaggingPaused');
        return found;
      });
      expect(condition(quiet, 'PrincipalCredentialRetrieved')?.status).to.equal('True');
      expect(condition(quiet, 'Ready')).to.include({ status: 'False', reason: 'TaggingPaused' });
    });

    it('makes the static identity an owner of its Secret, for clusterctl move', async () => {
      const identity = await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a');
      await eventually(async () => {
        const secret = await platform.core.readNamespacedSecret({
          namespace: 'keymaster-system',
          name: 'tenant-a-keys',
        });
        expect(secret.metadata?.ownerReferences?.map(({ kind, name, uid }) => ({ kind, name, uid }))).to.deep.equal([
          { kind: 'AWSClusterStaticIdentity', name: 'tenant-a', uid: identity.metadata.uid },
        ]);
      });
    });

    it('keeps an identity in use from being deleted until its clusters are gone', async () => {
      await eventually(async () =>
        expect(
          (await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a')).metadata.finalizers,
        ).to.deep.equal([IDENTITY_FINALIZER]),
      );
      await platform.objects.delete(staticIdentity);
      const blocked = await eventually(async () => {
        const events = await platform.core.listNamespacedEvent({ namespace: 'default' });
        const found = events.items.find((event) => event.reason === 'DeletionBlocked');
        expect(found).to.exist;
        return found!;
      });
      expect(blocked.message).to.match(/still used by 2 AWSCluster\(s\) \(team-b\/prod, team-b\/quiet\)/);
      expect(
        (await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a')).metadata
          .deletionTimestamp,
      ).to.be.a('string');
      await platform.objects.delete(cluster('team-b', 'prod'));
      await platform.objects.delete(cluster('team-b', 'quiet'));
      await gone(() => platform.get('awsclusterstaticidentities', 'tenant-a'));
    });
  });
});
