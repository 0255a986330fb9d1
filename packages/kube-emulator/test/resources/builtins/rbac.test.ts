import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../helpers/emulator.js';
import { failure } from '../../helpers/failure.js';
import { kubectl, kubectlBinary } from '../../helpers/kubectl.js';

const GROUP = 'rbac.authorization.k8s.io';

describe('rbac.authorization.k8s.io/v1 (stored, not enforced)', function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let rbac: RbacAuthorizationV1Api;
  const ok = async (...args: string[]): Promise<string> => {
    const result = await kubectl(kubectlBinary(33), cluster.kubeconfig, args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return result.stdout;
  };

  before(async () => {
    cluster = await startTestCluster();
    rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  });
  after(() => cluster.stop());

  it('stores roles and bindings and reads them back through the typed client', async () => {
    const rules = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'], resourceNames: ['a'] }];
    await rbac.createClusterRole({ body: { metadata: { name: 'system:reader' }, rules } });
    await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'reader' }, rules } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'readers' },
        roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'system:reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: {
        metadata: { name: 'readers' },
        roleRef: { apiGroup: GROUP, kind: 'Role', name: 'reader' },
        subjects: [{ kind: 'User', apiGroup: GROUP, name: 'alice' }],
      },
    });
    expect((await rbac.readClusterRole({ name: 'system:reader' })).rules).to.deep.equal(rules);
    expect((await rbac.readNamespacedRole({ namespace: 'default', name: 'reader' })).rules).to.deep.equal(rules);
    expect((await rbac.readClusterRoleBinding({ name: 'readers' })).subjects?.[0]?.name).to.equal('robot');
    const bindings = await rbac.listRoleBindingForAllNamespaces();
    expect(bindings.items.map((item) => item.roleRef.name)).to.deep.equal(['reader']);
  });

  it('refuses to change a binding roleRef, as the apiserver does', async () => {
    const binding = await rbac.readNamespacedRoleBinding({ namespace: 'default', name: 'readers' });
    binding.roleRef = { apiGroup: GROUP, kind: 'ClusterRole', name: 'system:reader' };
    const refused = await failure(
      rbac.replaceNamespacedRoleBinding({ namespace: 'default', name: 'readers', body: binding }),
    );
    expect(refused.code).to.equal(422);
    expect(refused.status.message).to.equal(
      'RoleBinding.rbac.authorization.k8s.io "readers" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"system:reader"}: field is immutable',
    );
  });

  it('checks roleRef kinds, ServiceAccount namespaces of cluster bindings, and names as path segments', async () => {
    const wrongKind = await failure(
      rbac.createClusterRoleBinding({
        body: { metadata: { name: 'x' }, roleRef: { apiGroup: GROUP, kind: 'Role', name: 'reader' } },
      }),
    );
    expect(wrongKind.status.message).to.contain('roleRef.kind: Unsupported value: "Role"');
    const noNamespace = await failure(
      rbac.createClusterRoleBinding({
        body: {
          metadata: { name: 'y' },
          roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'system:reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
        },
      }),
    );
    expect(noNamespace.status.message).to.contain('subjects[0].namespace: Required value');
    const slash = await failure(rbac.createClusterRole({ body: { metadata: { name: 'a/b' } } }));
    expect(slash.status.message).to.contain(`metadata.name: Invalid value: "a/b": may not contain '/'`);
    const noVerbs = await failure(
      rbac.createClusterRole({ body: { metadata: { name: 'c' }, rules: [{ resources: ['x'] }] } as never }),
    );
    expect(noVerbs.status.message).to.contain('rules[0].verbs: Required value');
  });

  it('lists the kinds in kubectl api-resources and prints bindings with -o wide', async () => {
    const resources = await ok('api-resources', '--api-group', GROUP);
    for (const [plural, namespaced, kind] of [
      ['clusterrolebindings', 'false', 'ClusterRoleBinding'],
      ['clusterroles', 'false', 'ClusterRole'],
      ['rolebindings', 'true', 'RoleBinding'],
      ['roles', 'true', 'Role'],
    ]) {
      expect(resources).to.match(
        new RegExp(`^${plural}\\s+rbac\\.authorization\\.k8s\\.io/v1\\s+${namespaced}\\s+${kind}$`, 'm'),
      );
    }
    const wide = await ok('get', 'clusterrolebinding', 'readers', '-o', 'wide');
    expect(wide).to.match(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/m);
    expect(wide).to.match(/^readers\s+ClusterRole\/system:reader\s+\S+\s+default\/robot$/m);
  });

  it('takes kubectl 1.33 create role|clusterrole|rolebinding|clusterrolebinding (sent as protobuf)', async () => {
    await ok('create', 'clusterrole', 'lease-reader', '--verb=get,list', '--resource=leases.coordination.k8s.io');
    await ok('create', 'clusterrole', 'aggregate', '--aggregation-rule=tier=gold');
    await ok(
      'create',
      'role',
      'one-secret',
      '-n',
      'default',
      '--verb=get',
      '--resource=secrets',
      '--resource-name=creds',
    );
    await ok(
      'create',
      'rolebinding',
      'rb',
      '-n',
      'default',
      '--clusterrole=lease-reader',
      '--user=bob',
      '--group=ops',
      '--serviceaccount=default:robot',
    );
    await ok('create', 'clusterrolebinding', 'crb', '--clusterrole=lease-reader', '--serviceaccount=default:robot');
    expect((await rbac.readClusterRole({ name: 'lease-reader' })).rules).to.deep.equal([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list'] },
    ]);
    expect((await rbac.readClusterRole({ name: 'aggregate' })).aggregationRule).to.deep.equal({
      clusterRoleSelectors: [{ matchLabels: { tier: 'gold' } }],
    });
    expect((await rbac.readNamespacedRole({ namespace: 'default', name: 'one-secret' })).rules).to.deep.equal([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['creds'], verbs: ['get'] },
    ]);
    const binding = await rbac.readNamespacedRoleBinding({ namespace: 'default', name: 'rb' });
    expect(binding.roleRef).to.deep.equal({ apiGroup: GROUP, kind: 'ClusterRole', name: 'lease-reader' });
    expect(binding.subjects?.map((subject) => `${subject.kind}:${subject.name}`)).to.deep.equal([
      'User:bob',
      'Group:ops',
      'ServiceAccount:robot',
    ]);
    expect((await rbac.readClusterRoleBinding({ name: 'crb' })).subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
    ]);
  });
});
