import { expect } from 'chai';
import type { AWSCluster, AWSClusterStaticIdentity } from '@keymaster/api';
import type { V1Secret } from '@kubernetes/client-node';
import {
  HUB_ROLE,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import { MOVE_LABEL, clusterctlMove } from './support/clusterctl-move.js';
import { eventually } from './support/eventually.js';
import { clusterKey, type Kube } from './support/kube.js';
import { ManagementCluster } from './support/management-cluster.js';
import {
  CONTROLLER_NAMESPACE,
  awsCluster,
  controllerIdentity,
  externalIDSecret,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
  tagPolicy,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const TENANT_A_KEY = accessKey('move/tenant-a');
const EXTERNAL_ID = 'move-tenant-b-external-id';
const PAUSED = 'cluster.x-k8s.io/paused';
const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';
const TENANT_A_SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'tenant-a-keys', namespace: CONTROLLER_NAMESPACE },
};
const TENANT_B_SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'tenant-b-external-id', namespace: CONTROLLER_NAMESPACE },
};
/** What clusterctl does not move: the target is prepared with them (docs/operations.md). */
const NAMESPACES = [
  namespace('tenant-a', { 'keymaster.dev/tenant': 'tenant-a' }),
  namespace('tenant-b', { 'keymaster.dev/tenant': 'tenant-b' }),
];
const POLICY = tagPolicy([{ key: 'platform-managed', value: 'true', overridePolicy: 'Deny' }]);

const CLUSTERS = [
  { namespace: 'tenant-a', name: 'a-1', account: TENANT_A, region: 'us-west-2', ref: staticRef('tenant-a') },
  { namespace: 'tenant-a', name: 'a-2', account: TENANT_A, region: 'us-west-2', ref: staticRef('tenant-a') },
  { namespace: 'tenant-b', name: 'b-1', account: TENANT_B, region: 'eu-west-1', ref: roleRef('tenant-b') },
  { namespace: 'tenant-b', name: 'b-2', account: TENANT_B, region: 'eu-west-1', ref: roleRef('tenant-b') },
].map((cluster) => ({ ...cluster, resources: clusterResources(cluster.account, cluster.region, cluster.name, 2) }));

/** What a controller rebuilds from AWS and the objects alone: everything in status but times. */
const rebuilt = ({ status }: AWSCluster) => ({
  accountID: status?.accountID,
  principalARN: status?.principalARN,
  identityChain: status?.identityChain,
  managedTags: status?.tagging?.managedTags,
  conflicts: status?.tagging?.conflicts,
  resourcesInSync: status?.tagging?.resourcesInSync,
  conditions: status?.conditions?.map(({ type, status: value, reason }) => ({ type, status: value, reason })),
});

async function statuses(kube: Kube) {
  return Object.fromEntries((await kube.clusters()).map((cluster) => [cluster.metadata.name ?? '', rebuilt(cluster)]));
}

describe('clusterctl move: the target controller takes over from AWS alone', function () {
  let scenario: Scenario;
  let target: ManagementCluster | undefined;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: TENANT_A,
            users: [{ name: 'tenant-a-automation', accessKeys: [TENANT_A_KEY], allow: TAGGER }],
            resources: CLUSTERS.filter(({ account }) => account === TENANT_A).flatMap(({ resources }) => resources),
          },
          {
            id: TENANT_B,
            roles: [tenantRole('tenant-b-admin', HUB_ROLE, EXTERNAL_ID)],
            resources: CLUSTERS.filter(({ account }) => account === TENANT_B).flatMap(({ resources }) => resources),
          },
        ],
      },
      objects: [
        ...NAMESPACES,
        POLICY,
        controllerIdentity({ list: ['tenant-b'] }),
        keysSecret('tenant-a-keys', TENANT_A_KEY),
        staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }, [{ key: 'tenant', value: 'a' }]),
        roleIdentity('keymaster-hub', {
          roleARN: HUB_ROLE,
          allowedNamespaces: { selector: { matchLabels: { 'keymaster.dev/tenant': 'tenant-b' } } },
        }),
        externalIDSecret('tenant-b-external-id', EXTERNAL_ID),
        roleIdentity('tenant-b', {
          roleARN: roleArn(TENANT_B, 'tenant-b-admin'),
          externalIDSecretRef: { name: 'tenant-b-external-id', key: 'externalID' },
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-b'] },
          resourceTags: [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }],
        }),
        ...CLUSTERS.map(({ namespace: ns, name, region, ref }) =>
          awsCluster(ns, name, {
            region,
            identityRef: ref,
            // A conflict settled by policy, and a removal policy that needs managedTags: both rebuilt after the move.
            additionalTags: { team: name, ...(name === 'b-2' ? { tenant: 'someone-else' } : {}) },
            ...(name === 'b-1' ? { tagging: { removalPolicy: 'Delete' as const } } : {}),
          }),
        ),
      ],
      syncPeriod: '2s',
      args: ['--log-level', 'debug'],
    });
    await scenario.kube.untilReady(CLUSTERS.length);
  });

  after(async function () {
    await target?.stop();
    await stopScenarios();
  });

  it('moves identities, the Secrets ops labelled (keys, an externalID) and the clusters; the target rebuilds every status with zero tag writes', async function () {
    const { kube, aws, controller } = scenario;
    const before = await statuses(kube);
    const uids = new Map((await kube.clusters()).map(({ metadata }) => [metadata.name, metadata.uid]));

    // Keymaster's AWSClusters have no Cluster API Cluster for clusterctl to pause: ops pause them.
    for (const { namespace: ns, name } of CLUSTERS)
      await kube.patch(clusterKey(ns, name), { metadata: { annotations: { [PAUSED]: 'true' } } });
    await eventually(() => {
      const paused = controller.logged('paused by annotation').map((line) => line['cluster']);
      expect(paused).to.include.members(CLUSTERS.map(({ name }) => name));
    });
    aws.emulator.calls.reset();

    target = await ManagementCluster.start([...NAMESPACES, POLICY]);
    // Keymaster never writes a Secret: ops label the ones clusterctl should carry, then move the
    // controller's namespace (where clusterctl finds them) before the tenants' namespaces.
    for (const secret of [TENANT_A_SECRET, TENANT_B_SECRET])
      await kube.patch(secret, { metadata: { labels: { [MOVE_LABEL]: '' } } });
    for (const ns of [CONTROLLER_NAMESPACE, 'tenant-a', 'tenant-b']) await clusterctlMove(kube, target.kube, ns);
    expect(await kube.clusters(), 'clusterctl deletes what it moved from the source').to.be.empty;
    expect(await kube.list(API_VERSION, 'AWSClusterStaticIdentity'), 'identities are copied').to.have.length(1);

    const successor = await target.startController({ awsUrl: aws.emulator.url, syncPeriod: '2s' });
    expect(await controller.stop('SIGTERM')).to.deep.equal({ code: 0, signal: null });
    for (const { namespace: ns, name } of CLUSTERS)
      await target.kube.patch(clusterKey(ns, name), { metadata: { annotations: { [PAUSED]: null } } });

    await eventually(async () => expect(await statuses(target!.kube)).to.deep.equal(before));
    const moved = await target.kube.clusters();
    for (const cluster of moved) expect(cluster.metadata.uid).not.to.equal(uids.get(cluster.metadata.name));
    expect(aws.count('tag:GetResources'), 'the target looked at AWS').to.be.greaterThan(0);
    expect(aws.tagWrites(), 'tag writes since the move').to.equal(0);
    expect(successor.logs.filter(({ level }) => level === 'error')).to.be.empty;
  });

  it('leaves the target in charge: the Secret as ops left it, identities in use, drift set back', async function () {
    const kube = target!.kube;
    const identity = await kube.identity<AWSClusterStaticIdentity>('AWSClusterStaticIdentity', 'tenant-a');
    const secret = await kube.read<V1Secret>(TENANT_A_SECRET);
    expect(secret.metadata?.ownerReferences ?? [], 'no owner: nothing deletes it with the identity').to.be.empty;
    expect(secret.metadata?.labels).to.deep.equal({ [MOVE_LABEL]: '' });
    expect(identity.metadata.finalizers).to.include('infrastructure.keymaster.dev/identity-in-use');

    const [resource] = CLUSTERS[2]!.resources;
    const { aws } = scenario;
    await aws.setTags(resource!.arn, { ...aws.tags(resource!.arn), team: 'edited-by-hand' });
    await eventually(() => expect(aws.tags(resource!.arn)).to.include({ team: 'b-1' }));
  });

  it('keeps the keys when the static identity is deleted: the Secret outlives it', async function () {
    const kube = target!.kube;
    for (const { namespace: ns, name } of CLUSTERS.filter(({ namespace: ns }) => ns === 'tenant-a'))
      await kube.delete(clusterKey(ns, name));
    await kube.delete({ apiVersion: API_VERSION, kind: 'AWSClusterStaticIdentity', metadata: { name: 'tenant-a' } });
    await eventually(
      async () => expect(await kube.list(API_VERSION, 'AWSClusterStaticIdentity'), 'the identity is gone').to.be.empty,
    );
    const secret = await kube.read<V1Secret>(TENANT_A_SECRET);
    expect(secret.data).to.have.keys('AccessKeyID', 'SecretAccessKey');
  });
});
