import { CustomObjectsApi, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION } from '@keymaster/api';
import { CRDS_DIR, startRealKube, type RealKube } from '@keymaster/testenv';
import { expect } from 'chai';
import { eventually } from '../integration/harness.js';
import { readManifests } from './repo.js';

const CONTROLLER = 'system:serviceaccount:keymaster-system:keymaster';
const USERS = [
  { token: 'controller-token', user: CONTROLLER, uid: 'controller' },
  // Bound to cluster-admin, as a platform that gives a team everything might: RBAC lets it do anything.
  { token: 'everything-token', user: 'dana', uid: 'dana', groups: ['tenant-a-developers'] },
];
const ledgers = { group: GROUP, version: VERSION, plural: 'awsclusterledgers', namespace: 'tenant-a' };

/** The HTTP code and message of a refused call; undefined when it went through. */
async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    const { code, body } = error as { code: number; body: string };
    return { code, message: (JSON.parse(body) as { message: string }).message };
  }
}

describe("deploy/policies on kube-apiserver, with kube-controller-manager's garbage collector", function () {
  this.timeout(300_000);
  let kube: RealKube | undefined;
  const client = (token?: string) => {
    const config = new KubeConfig();
    config.loadFromString(kube!.kubeConfig(token ? { token } : {}));
    return config.makeApiClient(CustomObjectsApi);
  };
  const ledger = (name: string, owner?: { name: string; uid: string }): KubernetesObject & { spec: object } => ({
    apiVersion: API_VERSION,
    kind: 'AWSClusterLedger',
    metadata: {
      name,
      namespace: 'tenant-a',
      ...(owner
        ? { ownerReferences: [{ apiVersion: API_VERSION, kind: 'AWSCluster', ...owner, controller: true }] }
        : {}),
    },
    spec: {},
  });

  before(async () => {
    kube = await startRealKube({ crds: CRDS_DIR, controllerManager: true, tokens: USERS });
    const config = new KubeConfig();
    config.loadFromString(kube.kubeConfig());
    const objects = KubernetesObjectApi.makeApiClient(config);
    for (const object of [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'everything' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: USERS.map(({ user }) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user })),
      },
      ...readManifests('deploy/policies/ledger-writers.yaml'),
    ])
      await objects.create(object);
    // Enforced once kube-apiserver has compiled it.
    await eventually(
      async () =>
        expect(
          (
            await refusal(
              client('everything-token').createNamespacedCustomObject({ ...ledgers, body: ledger('probe') }),
            )
          )?.code,
        ).to.equal(403),
      60_000,
    );
  });
  after(() => kube?.stop());

  it('refuses a user RBAC allows everything, and names the policy; lets the controller and system:masters write', async () => {
    const everything = client('everything-token');
    const refused = await refusal(everything.createNamespacedCustomObject({ ...ledgers, body: ledger('mine') }));
    expect(refused?.code).to.equal(403);
    expect(refused?.message).to.include(
      'AWSClusterLedgers are written by the Keymaster controller only: dana may not create them (ValidatingAdmissionPolicy keymaster-ledger-writers)',
    );
    await client('controller-token').createNamespacedCustomObject({ ...ledgers, body: ledger('by-controller') });
    await client().createNamespacedCustomObject({ ...ledgers, body: ledger('by-ops') });
    for (const name of ['by-controller', 'by-ops'])
      expect((await refusal(everything.deleteNamespacedCustomObject({ ...ledgers, name })))?.code, name).to.equal(403);
    await client().deleteNamespacedCustomObject({ ...ledgers, name: 'by-ops' });
  });

  it('lets the garbage collector delete a ledger with its AWSCluster', async () => {
    const ops = client();
    const cluster = (await ops.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awsclusters',
      namespace: 'tenant-a',
      body: { apiVersion: API_VERSION, kind: 'AWSCluster', metadata: { name: 'prod' }, spec: { region: 'eu-west-1' } },
    })) as { metadata: { name: string; uid: string } };
    await client('controller-token').createNamespacedCustomObject({
      ...ledgers,
      body: ledger('prod', { name: 'prod', uid: cluster.metadata.uid }),
    });
    await ops.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'awsclusters',
      namespace: 'tenant-a',
      name: 'prod',
    });
    // The garbage collector's own pace: tens of seconds on a busy machine.
    await eventually(
      async () =>
        expect((await refusal(ops.getNamespacedCustomObject({ ...ledgers, name: 'prod' })))?.code).to.equal(404),
      120_000,
    );
  });
});
