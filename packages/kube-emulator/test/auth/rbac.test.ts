import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { KubeEmulatorError, startKubeEmulator } from '../../src/index.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { failure } from '../helpers/failure.js';
import { kubectl, kubectlBinary } from '../helpers/kubectl.js';

const GROUP = 'rbac.authorization.k8s.io';
const ROBOT = 'system:serviceaccount:apps:robot';
const TOKENS = `root-token,root,0,system:masters
robot-token,${ROBOT},1
alice-token,alice,2,"devs,tenants"
eve-token,eve,3
`;

describe("authorization: 'RBAC'", function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  const as = (token: string): KubeConfig => {
    const config = new KubeConfig();
    config.loadFromString(cluster.emulator.kubeConfig({ token }));
    return config;
  };
  const core = (token: string) => as(token).makeApiClient(CoreV1Api);
  const rbacApi = () => as('root-token').makeApiClient(RbacAuthorizationV1Api);

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-rbac-'));
    writeFileSync(join(folder, 'tokens.csv'), TOKENS);
    cluster = await startTestCluster({
      tokenAuthFile: join(folder, 'tokens.csv'),
      token: 'root-token',
      authorization: 'RBAC',
      tls: true,
    });
    const root = core('root-token');
    for (const name of ['apps', 'other']) {
      await root.createNamespace({ body: { metadata: { name } } });
      await root.createNamespacedSecret({ namespace: name, body: { metadata: { name: 'creds' } } });
      await root.createNamespacedSecret({ namespace: name, body: { metadata: { name: 'public' } } });
    }
    const rbac = as('root-token').makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'secret-reader' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'apps',
      body: {
        metadata: { name: 'robot-reads-secrets' },
        roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'secret-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      },
    });
    await rbac.createNamespacedRole({
      namespace: 'other',
      body: {
        metadata: { name: 'one-secret' },
        rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['public'], verbs: ['get'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'other',
      body: {
        metadata: { name: 'devs-read-public' },
        roleRef: { apiGroup: GROUP, kind: 'Role', name: 'one-secret' },
        subjects: [{ kind: 'Group', apiGroup: GROUP, name: 'devs' }],
      },
    });
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'status-writer' },
        rules: [
          { apiGroups: ['infrastructure.keymaster.dev'], resources: ['awsclusters/status'], verbs: ['update'] },
          { apiGroups: ['infrastructure.keymaster.dev'], resources: ['awsclusters'], verbs: ['list'] },
          { apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'alice-writes-status' },
        roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'status-writer' },
        subjects: [{ kind: 'User', apiGroup: GROUP, name: 'alice' }],
      },
    });
    await as('root-token')
      .makeApiClient(CustomObjectsApi)
      .createNamespacedCustomObject({
        group: 'infrastructure.keymaster.dev',
        version: 'v1beta1',
        namespace: 'apps',
        plural: 'awsclusters',
        body: {
          apiVersion: 'infrastructure.keymaster.dev/v1beta1',
          kind: 'AWSCluster',
          metadata: { name: 'c' },
          spec: { region: 'eu-west-1' },
        },
      });
  });
  after(async () => {
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses a user no binding names, with the apiserver wording, and counts the refusals', async () => {
    cluster.emulator.stats.reset();
    const list = await failure(core('eve-token').listNamespacedSecret({ namespace: 'apps' }));
    expect(list.code).to.equal(403);
    expect(list.status).to.deep.include({
      reason: 'Forbidden',
      message:
        'secrets is forbidden: User "eve" cannot list resource "secrets" in API group "" in the namespace "apps"',
      details: { kind: 'secrets' },
    });
    const get = await failure(core('eve-token').readNamespace({ name: 'apps' }));
    expect(get.status.message).to.equal(
      'namespaces "apps" is forbidden: User "eve" cannot get resource "namespaces" in API group "" in the namespace "apps"',
    );
    const nodes = await failure(core('eve-token').listNamespace());
    expect(nodes.status.message).to.equal(
      'namespaces is forbidden: User "eve" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    expect(cluster.emulator.stats.forbidden({ user: 'eve' })).to.equal(3);
    expect(cluster.emulator.stats.requests({ user: 'eve', verb: 'list', resource: 'secrets' })[0]).to.include({
      count: 1,
      forbidden: 1,
    });
  });

  it('lets system:masters do everything', async () => {
    expect((await core('root-token').listSecretForAllNamespaces()).items).to.have.length(4);
  });

  it('grants a ServiceAccount through a RoleBinding in its namespace only', async () => {
    const robot = core('robot-token');
    expect((await robot.listNamespacedSecret({ namespace: 'apps' })).items).to.have.length(2);
    expect((await robot.readNamespacedSecret({ namespace: 'apps', name: 'creds' })).metadata?.name).to.equal('creds');
    expect((await failure(robot.listNamespacedSecret({ namespace: 'other' }))).code).to.equal(403);
    expect((await failure(robot.listSecretForAllNamespaces())).code).to.equal(403);
    const write = await failure(robot.deleteNamespacedSecret({ namespace: 'apps', name: 'creds' }));
    expect(write.status.message).to.equal(
      `secrets "creds" is forbidden: User "${ROBOT}" cannot delete resource "secrets" in API group "" in the namespace "apps"`,
    );
  });

  it('grants through groups, limited to resourceNames', async () => {
    const alice = core('alice-token');
    expect((await alice.readNamespacedSecret({ namespace: 'other', name: 'public' })).metadata?.name).to.equal(
      'public',
    );
    expect((await failure(alice.readNamespacedSecret({ namespace: 'other', name: 'creds' }))).code).to.equal(403);
    expect((await failure(alice.listNamespacedSecret({ namespace: 'other' }))).code).to.equal(403);
  });

  it('tells a subresource from its resource, and matches */subresource', async () => {
    const custom = as('alice-token').makeApiClient(CustomObjectsApi);
    const target = {
      group: 'infrastructure.keymaster.dev',
      version: 'v1beta1',
      namespace: 'apps',
      plural: 'awsclusters',
      name: 'c',
    };
    const cluster = (await custom.getNamespacedCustomObjectStatus(target)) as { metadata: { resourceVersion: string } };
    await custom.replaceNamespacedCustomObjectStatus({
      ...target,
      body: { ...cluster, status: { accountID: '111111111111' } },
    });
    const main = await failure(custom.replaceNamespacedCustomObject({ ...target, body: cluster }));
    expect(main.status.message).to.equal(
      'awsclusters.infrastructure.keymaster.dev "c" is forbidden: User "alice" cannot update resource "awsclusters" in API group "infrastructure.keymaster.dev" in the namespace "apps"',
    );
    const get = await failure(custom.getNamespacedCustomObject(target));
    expect(get.code).to.equal(403);
  });

  it('answers discovery to every authenticated user, and kubectl reports the refusal', async () => {
    const kubeconfig = join(folder, 'eve.kubeconfig');
    await cluster.emulator.writeKubeConfig(kubeconfig, { token: 'eve-token' });
    const binary = kubectlBinary(33);
    expect((await kubectl(binary, kubeconfig, ['api-resources'])).code).to.equal(0);
    const refused = await kubectl(binary, kubeconfig, ['get', 'secrets', '-n', 'apps']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain(
      'Error from server (Forbidden): secrets is forbidden: User "eve" cannot list resource "secrets" in API group "" in the namespace "apps"',
    );
  });

  it('refuses anonymous requests (system:anonymous) but for health and version, as kube-apiserver does', async () => {
    const list = await call(cluster.emulator, 'GET', '/api/v1/namespaces/apps/secrets');
    expect(list.status).to.equal(403);
    expect((list.body as { message: string }).message).to.equal(
      'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "apps"',
    );
    const discovery = await call(cluster.emulator, 'GET', '/api');
    expect(discovery.body).to.deep.include({
      code: 403,
      message: 'forbidden: User "system:anonymous" cannot get path "/api"',
      details: {},
    });
    expect((await call(cluster.emulator, 'GET', '/version')).status).to.equal(200);
  });

  it('answers SelfSubjectAccessReviews with the binding that allows, and says why a refusal has no role', async () => {
    const review = async (token: string, resourceAttributes: Record<string, string>) =>
      (
        await call(
          cluster.emulator,
          'POST',
          '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
          { Authorization: `Bearer ${token}` },
        )
      ).body as { status: { allowed: boolean; reason?: string } };
    expect(
      (await review('alice-token', { namespace: 'other', verb: 'get', resource: 'secrets', name: 'public' })).status,
    ).to.deep.equal({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "devs-read-public/other" of Role "one-secret" to Group "devs"',
    });
    expect(
      (await review('alice-token', { namespace: 'other', verb: 'delete', resource: 'secrets' })).status,
    ).to.deep.equal({
      allowed: false,
    });
    await rbacApi().createNamespacedRoleBinding({
      namespace: 'other',
      body: {
        metadata: { name: 'dangling' },
        roleRef: { apiGroup: GROUP, kind: 'Role', name: 'nonexistent' },
        subjects: [{ kind: 'User', apiGroup: GROUP, name: 'eve' }],
      },
    });
    const refused = await failure(core('eve-token').listNamespacedConfigMap({ namespace: 'other' }));
    expect(refused.status.message).to.equal(
      'configmaps is forbidden: User "eve" cannot list resource "configmaps" in API group "" in the namespace "other": rbac: RBAC: role.rbac.authorization.k8s.io "nonexistent" not found',
    );
  });

  it('refuses roles and bindings that grant more than their author holds (RBAC escalation checks)', async () => {
    await rbacApi().createNamespacedRole({
      namespace: 'other',
      body: {
        metadata: { name: 'role-writer' },
        rules: [{ apiGroups: [GROUP], resources: ['roles', 'rolebindings'], verbs: ['create'] }],
      },
    });
    await rbacApi().createNamespacedRoleBinding({
      namespace: 'other',
      body: {
        metadata: { name: 'eve-writes-roles' },
        roleRef: { apiGroup: GROUP, kind: 'Role', name: 'role-writer' },
        subjects: [{ kind: 'User', apiGroup: GROUP, name: 'eve' }],
      },
    });
    const escalating = await failure(
      as('eve-token')
        .makeApiClient(RbacAuthorizationV1Api)
        .createNamespacedRole({
          namespace: 'other',
          body: {
            metadata: { name: 'more' },
            rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
          },
        }),
    );
    expect(escalating.status.message).to.equal(
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    const binding = await failure(
      as('eve-token')
        .makeApiClient(RbacAuthorizationV1Api)
        .createNamespacedRoleBinding({
          namespace: 'other',
          body: {
            metadata: { name: 'eve-admin' },
            roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'cluster-admin' },
            subjects: [{ kind: 'User', apiGroup: GROUP, name: 'eve' }],
          },
        }),
    );
    expect(binding.status.message).to.equal(
      'rolebindings.rbac.authorization.k8s.io "eve-admin" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
    const modest = await as('eve-token')
      .makeApiClient(RbacAuthorizationV1Api)
      .createNamespacedRole({
        namespace: 'other',
        body: {
          metadata: { name: 'modest' },
          rules: [{ apiGroups: [GROUP], resources: ['roles'], verbs: ['create'] }],
        },
      });
    expect(modest.metadata?.name).to.equal('modest');
  });

  it('stores the bootstrap cluster-admin ClusterRole, bound to system:masters', async () => {
    const role = await rbacApi().readClusterRole({ name: 'cluster-admin' });
    expect(role.rules).to.deep.equal([
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
    expect((await rbacApi().readClusterRoleBinding({ name: 'cluster-admin' })).subjects).to.deep.equal([
      { apiGroup: GROUP, kind: 'Group', name: 'system:masters' },
    ]);
  });

  it('refuses an unknown authorization mode', async () => {
    let error: unknown;
    try {
      await startKubeEmulator({ authorization: 'Webhook' as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(KubeEmulatorError).with.property('code', 'ERR_KEYMASTER_KUBE_EMULATOR_USAGE');
  });
});
