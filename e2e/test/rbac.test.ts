import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { DEMO_WORLD } from '@keymaster/testenv';
import { eventually } from './support/eventually.js';
import {
  awsCluster,
  serviceAccount,
  serviceAccountIdentity,
  serviceAccountRef,
  webIdentity,
  webRef,
} from './support/objects.js';
import { RbacManagementCluster } from './support/rbac-management-cluster.js';
import { CONTROLLER_SERVICE_ACCOUNT as SERVICE_ACCOUNT, manifests } from './support/rbac-manifests.js';

const GROUP = 'infrastructure.keymaster.dev';
const VERSION = 'v1beta1';
/** The demo world's controller user: deploy/examples refer to its accounts and roles. */
const CONTROLLER_KEY = {
  accessKeyId: 'AKIAEXAMPLECONTROLLER1',
  secretAccessKey: 'example-controller-secret-key-do-not-use-01',
};
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** `verb resource` of every permission deploy/rbac grants, named as the API server's request counts name requests. */
async function granted(): Promise<Set<string>> {
  const roles = (await manifests('deploy/rbac')).filter(({ kind }) => kind === 'ClusterRole' || kind === 'Role');
  const pairs = roles.flatMap((role) =>
    ((role as { rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }).rules ?? []).flatMap(
      (rule) =>
        rule.apiGroups.flatMap((group) =>
          rule.resources.flatMap((resource) =>
            // A subresource's requests are counted under its resource (a status PUT is an update).
            rule.verbs.map((verb) => `${verb} ${resource.split('/')[0]!}${group ? `.${group}` : ''}`),
          ),
        ),
    ),
  );
  return new Set(pairs);
}

/**
 * deploy/rbac against the real controller: `keymaster run` with the ServiceAccount's identity, on an
 * API server that enforces RBAC, with deploy/examples. Every request it makes must be allowed, and
 * every permission granted must be one it uses: least privilege, checked both ways.
 */
describe('deploy/rbac: the controller runs as its ServiceAccount under RBAC', function () {
  // Set in order by before(); after() stops whatever was started, also when before() failed midway.
  let aws: AwsEmulator | undefined;
  let management: RbacManagementCluster | undefined;
  let root: KubeConfig;

  before(async function () {
    aws = await startAwsEmulator({ world: DEMO_WORLD });
    // Without AWSClusterControllerIdentity "default": the controller creates it (AutoControllerIdentityCreator).
    const examples = (await manifests('deploy/examples')).filter(({ kind }) => kind !== 'AWSClusterControllerIdentity');
    // A web identity's cluster, for the one TokenRequest permission (AWS refuses it: the demo world trusts no issuer).
    const web = [
      serviceAccount('tenant-b', 'keymaster'),
      webIdentity('tenant-b-web', {
        roleARN: 'arn:aws:iam::333333333333:role/tenant-b-web',
        serviceAccount: { name: 'keymaster' },
        allowedNamespaces: { list: ['tenant-b'] },
      }),
      awsCluster('tenant-b', 'web', { region: 'eu-west-1', identityRef: webRef('tenant-b-web') }),
      // And a tenant's own identity in use: the controller's finalizer and status on that kind.
      serviceAccountIdentity('tenant-b', 'own', {
        roleARN: 'arn:aws:iam::333333333333:role/tenant-b-own',
        serviceAccountName: 'keymaster',
      }),
      awsCluster('tenant-b', 'own', { region: 'eu-west-1', identityRef: serviceAccountRef('own') }),
    ];
    management = await RbacManagementCluster.start({ tenants: [], objects: [...examples, ...web] });
    root = new KubeConfig();
    root.loadFromString(management.opsKubeConfig());
    // An upgrade: releases before this one made each static identity the owner of its Secret.
    const identity = (await root.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awsclusterstaticidentities',
      name: 'tenant-a',
    })) as { metadata: { uid: string } };
    // And builds before AWSAccountBinding had the first labelled identity in an account claim it: the
    // controller converts the claim into the account's binding, once.
    await root.makeApiClient(CustomObjectsApi).patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterstaticidentities',
        name: 'tenant-a',
        body: {
          metadata: {
            labels: { 'keymaster.dev/tenant': 'tenant-a' },
            annotations: {
              'keymaster.dev/claimed-account': '222222222222',
              'keymaster.dev/claimed-at': '2026-11-01T00:00:00Z',
            },
          },
        },
      },
      merge,
    );
    const owner = { apiVersion: `${GROUP}/${VERSION}`, kind: 'AWSClusterStaticIdentity', name: 'tenant-a' };
    await root.makeApiClient(CoreV1Api).patchNamespacedSecret(
      {
        namespace: 'keymaster-system',
        name: 'tenant-a-credentials',
        body: { metadata: { ownerReferences: [{ ...owner, uid: identity.metadata.uid }] } },
      },
      merge,
    );
    await management.startController({
      awsUrl: aws.url,
      credentials: CONTROLLER_KEY,
      args: ['--leader-elect', '--feature-gates', 'AutoControllerIdentityCreator=true'],
    });
  });
  after(async () => {
    await management?.stop();
    await aws?.stop();
  });

  it('converges deploy/examples: identities, Secrets freed of their old owner, status, events, and renews its Lease', async function () {
    const custom = root.makeApiClient(CustomObjectsApi);
    const core = root.makeApiClient(CoreV1Api);
    const ready = async (namespace: string, name: string) => {
      const cluster = (await custom.getNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        plural: 'awsclusters',
        namespace,
        name,
      })) as { status?: { conditions?: { type: string; status: string; reason: string }[] } };
      return cluster.status?.conditions?.find(({ type }) => type === 'Ready');
    };
    // The "default" it creates allows no namespace: ops give it the namespaces deploy/examples gives it.
    const created = (await eventually(() =>
      custom.getClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awsclustercontrolleridentities',
        name: 'default',
      }),
    )) as { spec: { allowedNamespaces: unknown } };
    expect(created.spec.allowedNamespaces).to.deep.equal({ list: [] });
    const example = (await manifests('deploy/examples')).find(({ kind }) => kind === 'AWSClusterControllerIdentity') as
      { spec: { allowedNamespaces: unknown } } | undefined;
    await custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclustercontrolleridentities',
        name: 'default',
        body: { spec: { allowedNamespaces: example!.spec.allowedNamespaces } },
      },
      merge,
    );
    await eventually(async () => {
      for (const [namespace, name] of [
        ['tenant-a', 'payments-prod'],
        ['tenant-b', 'analytics-prod'],
        ['tenant-b', 'analytics-dev'],
      ])
        expect(await ready(namespace!, name!), `${namespace}/${name}`).to.include({ status: 'True' });
      expect(await ready('tenant-c', 'reporting-prod')).to.include({
        status: 'False',
        reason: 'PrincipalUsageUnauthorized',
      });
    });
    await eventually(async () => {
      const secret = await core.readNamespacedSecret({ namespace: 'keymaster-system', name: 'tenant-a-credentials' });
      expect(secret.metadata?.ownerReferences ?? [], "the earlier release's owner, removed").to.be.empty;
    });
    // The example AWSCredentialsRequest is served in tenant-b (its Secret created there), then deleted
    // with its request (the finalizer): the Secret verbs of the ClusterRole.
    const reportsSecret = () => core.readNamespacedSecret({ namespace: 'tenant-b', name: 'tenant-b-reports-aws' });
    await eventually(async () =>
      expect(Object.keys((await reportsSecret()).data ?? {})).to.deep.equal(['credentials']),
    );
    const served = await reportsSecret();
    await core.replaceNamespacedSecret({
      namespace: 'tenant-b',
      name: 'tenant-b-reports-aws',
      body: Object.assign(served, { data: { credentials: Buffer.from('[default]\n').toString('base64') } }),
    });
    await eventually(async () =>
      expect((await reportsSecret()).data?.['credentials']).to.not.equal('W2RlZmF1bHRdCg=='),
    );
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awscredentialsrequests',
      namespace: 'tenant-b',
      name: 'reports',
    });
    await eventually(async () =>
      expect(
        await reportsSecret().then(
          () => 'found',
          () => 'gone',
        ),
      ).to.equal('gone'),
    );
    // The leader renews its Lease every 2 s (an update).
    const leases = root.makeApiClient(CoordinationV1Api);
    const lease = () => leases.readNamespacedLease({ namespace: 'keymaster-system', name: 'keymaster' });
    const first = await lease();
    await eventually(async () => expect((await lease()).spec?.renewTime).to.not.deep.equal(first.spec?.renewTime));
    // An event recorded again is patched (one Event, its count up): delete an identity in use, then touch it.
    await custom.deleteClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awsclusterstaticidentities',
      name: 'tenant-a',
    });
    const blocked = async () => {
      const events = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=DeletionBlocked' });
      expect(events.items).to.have.length(1);
      return events.items[0]!;
    };
    // Reconciles of the identity that its clusters cause record it again too: count from what is there.
    const recorded = (await eventually(blocked)).count ?? 1;
    await custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterstaticidentities',
        name: 'tenant-a',
        body: { metadata: { annotations: { touched: 'yes' } } },
      },
      merge,
    );
    await eventually(async () => expect((await blocked()).count).to.be.greaterThan(recorded));
  });

  it('a --shards replica lists, takes, renews and releases its shard Leases, and deletes its own at SIGTERM', async () => {
    // No cluster of its own (the watch filter matches none): beside the leader it only takes part in Leases.
    const sharded = await management!.startController({
      awsUrl: aws!.url,
      credentials: CONTROLLER_KEY,
      args: ['--shards=1', '--leader-election-id=keymaster-sharded', '--watch-filter=nobody'],
    });
    await eventually(async () => expect(await sharded.metric('keymaster_shard_owned', { shard: '0' })).to.equal(1));
    expect(await sharded.stop('SIGTERM')).to.deep.equal({ code: 0, signal: null });
    const group = await root.makeApiClient(CoordinationV1Api).listNamespacedLease({
      namespace: 'keymaster-system',
      labelSelector: 'keymaster.dev/shard-group=keymaster-sharded',
    });
    expect(group.items.map((lease) => [lease.metadata?.name, lease.spec?.holderIdentity])).to.deep.equal([
      ['keymaster-sharded-shard-0', undefined],
    ]);
  });

  it('was never refused, and used every permission deploy/rbac grants', async () => {
    const requests = management!.server.requests.requests({ user: SERVICE_ACCOUNT });
    const refused = requests
      .filter(({ forbidden }) => forbidden > 0)
      .map(({ verb, resource }) => `${verb} ${resource}`);
    expect(refused, 'requests RBAC refused').to.deep.equal([]);
    // Paths such as /apis (the start-up check) are granted by the bootstrap system:discovery role, and
    // SelfSubjectAccessReviews (the harness asks as the ServiceAccount whether its bindings took effect)
    // by system:basic-user: neither is deploy/rbac's.
    const used = new Set(
      requests
        .filter(
          ({ resource }) => !resource.startsWith('/') && resource !== 'selfsubjectaccessreviews.authorization.k8s.io',
        )
        .map(({ verb, resource }) => `${verb} ${resource}`),
    );
    expect([...used].sort()).to.deep.equal([...(await granted())].sort());
  });
});
