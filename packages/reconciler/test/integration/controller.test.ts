import {
  API_VERSION,
  type AWSCluster,
  type AWSClusterControllerIdentity,
  type AWSClusterStaticIdentity,
} from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { CLUSTER_FINALIZER } from '../../src/awscluster/reconciler.js';
import { IDENTITY_FINALIZER } from '../../src/awsclusteridentity/reconciler.js';
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
      platform = await startPlatform(
        [
          namespace('team-x'),
          cluster('team-x', 'prod', { additionalTags: { team: 'x' } }),
          cluster('team-x', 'paused', {}, { annotations: { 'cluster.x-k8s.io/paused': '' } }),
        ],
        ['--feature-gates', 'AutoControllerIdentityCreator=true'],
      );
    });
    after(() => platform.stop());

    it('creates AWSClusterControllerIdentity "default" allowing no namespace (AutoControllerIdentityCreator), and tells ops what to edit', async () => {
      const identity = await eventually(() =>
        platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default'),
      );
      expect(identity.spec).to.deep.equal({ allowedNamespaces: { list: [] } });
      const refused = await eventually(async () => {
        const found = await platform.cluster('team-x', 'prod');
        expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'PrincipalUsageUnauthorized' });
        return found;
      });
      expect(condition(refused, 'Ready')?.message).to.equal(
        'namespace "team-x" may not use AWSClusterControllerIdentity/default. Add "team-x" to ' +
          'spec.allowedNamespaces of AWSClusterControllerIdentity/default (list or selector), or use another ' +
          'identity. Every link of a chain must allow the namespace.',
      );
      expect(refused.status?.accountID, 'nothing resolved').to.equal(undefined);
    });

    it('serves the namespace once ops allow it', async () => {
      await platform.custom.patchClusterCustomObject(
        {
          group: 'infrastructure.keymaster.dev',
          version: 'v1beta1',
          plural: 'awsclustercontrolleridentities',
          name: 'default',
          body: { spec: { allowedNamespaces: { list: ['team-x'] } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
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
      expect(ready.metadata.finalizers).to.deep.equal([CLUSTER_FINALIZER.name]);
    });

    it('leaves a paused cluster alone: no finalizer, no status', async () => {
      await eventually(async () =>
        expect(condition(await platform.cluster('team-x', 'prod'), 'Ready')?.status).to.equal('True'),
      );
      const paused = await platform.cluster('team-x', 'paused');
      expect(paused.status).to.equal(undefined);
      expect(paused.metadata.finalizers).to.equal(undefined);
    });

    it('keeps the identity in use while clusters use it (paused ones too), and counts them in status, naming none', async () => {
      const identity = await eventually(async () => {
        const found = await platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default');
        expect(found.metadata.finalizers).to.deep.equal([IDENTITY_FINALIZER.name]);
        expect(found.status).to.deep.include({ clusterCount: 2, namespaceCount: 1, accountID: '111111111111' });
        return found;
      });
      expect(identity.status?.principalARN).to.equal('arn:aws:iam::111111111111:user/keymaster-controller');
      // Every tenant may read identities: their status tells no cluster's or namespace's name.
      expect(JSON.stringify(identity.status)).not.to.match(/team-x|prod|paused/);
    });

    it('deleting the clusters releases their finalizers and leaves the tags on AWS; the identity is then free', async () => {
      const tagged = platform.aws.world.listResources().find(({ arn }) => arn.includes('i-0000000000000000a'))!;
      expect(tagged.tags).to.have.property('sigs.k8s.io/cluster-api-provider-aws/cluster/prod', 'owned');
      await platform.objects.delete(cluster('team-x', 'prod'));
      await platform.objects.delete(cluster('team-x', 'paused'));
      await gone(() => platform.cluster('team-x', 'prod'));
      const after = platform.aws.world.listResources().find(({ arn }) => arn.includes('i-0000000000000000a'))!;
      expect(after.tags, 'the tags Keymaster applied stay').to.include({ team: 'x' });
      await eventually(async () => {
        const found = await platform.get<AWSClusterControllerIdentity>('awsclustercontrolleridentities', 'default');
        expect(found.metadata.finalizers ?? []).to.deep.equal([]);
        // Written by the reconcile after the one that released the finalizer.
        expect(found.status?.clusterCount).to.equal(0);
      });
    });
  });

  describe('a cluster of the controller identity, without the AutoControllerIdentityCreator gate (the default)', () => {
    let platform: Platform;
    before(async () => {
      platform = await startPlatform([namespace('team-y'), cluster('team-y', 'prod')]);
    });
    after(() => platform.stop());

    it('creates no identity: the cluster is refused, naming the identity to create', async () => {
      const refused = await eventually(async () => {
        const found = await platform.cluster('team-y', 'prod');
        expect(condition(found, 'PrincipalCredentialRetrieved')).to.include({
          status: 'False',
          reason: 'IdentityNotFound',
        });
        return found;
      });
      expect(condition(refused, 'Ready')?.status).to.equal('False');
      const identities = (await platform.custom.listClusterCustomObject({
        group: 'infrastructure.keymaster.dev',
        version: 'v1beta1',
        plural: 'awsclustercontrolleridentities',
      })) as { items: unknown[] };
      expect(identities.items).to.deep.equal([]);
    });
  });

  describe('a static identity shared by clusters of two namespaces', () => {
    let platform: Platform;
    before(async () => {
      platform = await startPlatform([
        namespace('team-a'),
        namespace('team-b'),
        tenantSecret,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'holder', namespace: 'keymaster-system' } },
        staticIdentity,
        cluster('team-a', 'prod', { identityRef: STATIC_REF }),
        cluster('team-b', 'prod', { identityRef: STATIC_REF }),
        cluster('team-b', 'quiet', { identityRef: STATIC_REF, clusterName: 'quiet', tagging: { paused: true } }),
      ]);
    });
    after(() => platform.stop());

    it('lets the older of two clusters with one clusterName in one account own it; the other writes nothing', async () => {
      const found = await eventually(async () => {
        const both = await Promise.all([platform.cluster('team-a', 'prod'), platform.cluster('team-b', 'prod')]);
        for (const item of both) expect(condition(item, 'ClusterNameUnique')?.status).to.equal('False');
        return both;
      });
      // Created within one second, so the UID may decide: the claim's order is creationTimestamp, then UID.
      const age = (item: AWSCluster) => `${item.metadata.creationTimestamp}\0${item.metadata.uid}`;
      const [owner, refused] = age(found[0]) < age(found[1]) ? found : [found[1], found[0]];
      expect(condition(owner, 'ClusterNameUnique')).to.include({ reason: 'DuplicateClusterName' });
      expect(condition(owner, 'ClusterNameUnique')?.message).to.include('222222222222').and.not.include('team-');
      expect(condition(owner, 'Ready')?.status, 'the owner stays Ready').to.equal('True');
      expect(condition(refused, 'ClusterNameUnique')).to.include({ reason: 'ClusterNameClaimed' });
      expect(condition(refused, 'Ready')).to.include({ status: 'False', reason: 'ClusterNameClaimed' });
      expect(condition(refused, 'ClusterNameUnique')?.message).to.not.include('team-');
      expect(refused.status?.tagging, "nothing of the owner's resources is told").to.deep.equal({});
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

    it('sets no ownerReference on the Secret, and removes the one earlier releases set, keeping the others', async () => {
      const identity = await eventually(async () => {
        const found = await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a');
        expect(found.metadata.finalizers).to.deep.equal([IDENTITY_FINALIZER.name]);
        return found;
      });
      const secretKey = { namespace: 'keymaster-system', name: 'tenant-a-keys' };
      expect((await platform.core.readNamespacedSecret(secretKey)).metadata?.ownerReferences).to.equal(undefined);
      const holder = await platform.core.readNamespacedConfigMap({ namespace: 'keymaster-system', name: 'holder' });
      const theirs = { apiVersion: 'v1', kind: 'ConfigMap', name: 'holder', uid: holder.metadata!.uid! };
      // What releases before this one wrote, for clusterctl move: the identity as the Secret's owner.
      const legacy = {
        apiVersion: API_VERSION,
        kind: 'AWSClusterStaticIdentity',
        name: 'tenant-a',
        uid: identity.metadata.uid!,
      };
      await platform.core.patchNamespacedSecret(
        { ...secretKey, body: { metadata: { ownerReferences: [legacy, theirs] } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually(async () =>
        expect((await platform.core.readNamespacedSecret(secretKey)).metadata?.ownerReferences).to.deep.equal([theirs]),
      );
    });

    it('keeps an identity in use from being deleted until its clusters are gone', async () => {
      await eventually(async () =>
        expect(
          (await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a')).metadata.finalizers,
        ).to.deep.equal([IDENTITY_FINALIZER.name]),
      );
      await platform.objects.delete(staticIdentity);
      const blocked = await eventually(async () => {
        const events = await platform.core.listNamespacedEvent({ namespace: 'default' });
        const found = events.items.find((event) => event.reason === 'DeletionBlocked');
        expect(found).to.exist;
        return found!;
      });
      expect(blocked.message).to.equal(
        'AWSClusterStaticIdentity/tenant-a is still used by 2 AWSCluster(s) in 1 namespace(s): it is deleted once ' +
          "they no longer use it, and accepts no new ones meanwhile (the controller's log names them)",
      );
      expect(
        (await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a')).metadata
          .deletionTimestamp,
      ).to.be.a('string');
      await platform.objects.delete(cluster('team-b', 'prod'));
      await platform.objects.delete(cluster('team-b', 'quiet'));
      await gone(() => platform.get('awsclusterstaticidentities', 'tenant-a'));
      const secret = await platform.core.readNamespacedSecret({ namespace: 'keymaster-system', name: 'tenant-a-keys' });
      expect(secret.data, 'the keys outlive the identity').to.have.keys('AccessKeyID', 'SecretAccessKey');
    });
  });

  describe('an identity being deleted', () => {
    const OTHER_REF = { kind: 'AWSClusterStaticIdentity', name: 'other' };
    const otherIdentity = { ...staticIdentity, metadata: { name: 'other' } };
    let platform: Platform;
    before(async () => {
      platform = await startPlatform([
        namespace('team-d'),
        tenantSecret,
        staticIdentity,
        otherIdentity,
        cluster('team-d', 'old', { identityRef: STATIC_REF }),
        cluster('team-d', 'bystander', { identityRef: OTHER_REF, clusterName: 'bystander' }),
      ]);
    });
    after(() => platform.stop());
    const conditions = async (name: string) => {
      const found = await platform.cluster('team-d', name);
      return Object.fromEntries(
        (found.status?.conditions ?? []).map(({ type, status, reason }) => [type, `${status}/${reason}`]),
      );
    };

    it('keeps serving its user, which is told; refuses a new cluster and an older one re-pointed at it', async () => {
      await eventually(async () => expect((await conditions('old'))['Ready']).to.equal('True/Ready'));
      await eventually(async () =>
        expect(
          (await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a')).metadata.finalizers,
        ).to.deep.equal([IDENTITY_FINALIZER.name]),
      );
      await platform.objects.delete(staticIdentity);

      const old = await eventually(async () => {
        const found = await platform.cluster('team-d', 'old');
        expect(condition(found, 'PrincipalUsageAllowed')).to.include({ status: 'True', reason: 'IdentityDeleting' });
        return found;
      });
      expect(condition(old, 'PrincipalUsageAllowed')?.message).to.include(
        'Being deleted: AWSClusterStaticIdentity/tenant-a.',
      );
      expect(condition(old, 'Ready')?.status, 'it keeps working').to.equal('True');
      const told = await eventually(async () => {
        const events = await platform.core.listNamespacedEvent({ namespace: 'team-d' });
        const found = events.items.find(({ reason }) => reason === 'IdentityDeleting');
        expect(found).to.exist;
        return found!;
      });
      expect(told).to.deep.include({ type: 'Warning' });
      expect(told.involvedObject.name).to.equal('old');

      await platform.objects.create(
        cluster('team-d', 'newcomer', { identityRef: STATIC_REF, clusterName: 'newcomer' }),
      );
      await platform.objects.patch(
        cluster('team-d', 'bystander', { identityRef: STATIC_REF, clusterName: 'bystander' }),
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      );
      for (const name of ['newcomer', 'bystander']) {
        await eventually(async () =>
          expect(await conditions(name), name).to.include({
            PrincipalUsageAllowed: 'False/IdentityDeleting',
            PrincipalCredentialRetrieved: 'Unknown/NotAttempted',
            Ready: 'False/IdentityDeleting',
          }),
        );
        const refused = await platform.cluster('team-d', name);
        expect(refused.status?.accountID, name).to.equal(undefined);
        expect(condition(refused, 'PrincipalUsageAllowed')?.message).to.equal(
          'AWSClusterStaticIdentity/tenant-a is being deleted and accepts no new AWSClusters. Point spec.identityRef ' +
            'at another identity that allows namespace "team-d" (ask the platform team which replaces ' +
            'AWSClusterStaticIdentity/tenant-a): an identity being deleted serves only the AWSClusters that used it ' +
            'before its deletion began.',
        );
      }
    });

    it('is gone once its users are, though refused clusters still name it', async () => {
      const identity = await platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', 'tenant-a');
      expect(identity.status?.clusterCount, 'only the cluster that used it before').to.equal(1);
      await platform.objects.delete(cluster('team-d', 'old'));
      await gone(() => platform.get('awsclusterstaticidentities', 'tenant-a'));
      await eventually(async () =>
        expect((await conditions('newcomer'))['PrincipalCredentialRetrieved']).to.equal('False/IdentityNotFound'),
      );
    });
  });
});
