import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { AWSCluster, AWSClusterStaticIdentity, AWSCredentialsRequest } from '@keymaster/api';
import {
  loadAllYaml,
  type KubernetesObject,
  type V1CustomResourceDefinition,
  type V1Secret,
} from '@kubernetes/client-node';
import { BACKEND } from './support/api-server.js';
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
import { MOVE_HIERARCHY_LABEL, MOVE_LABEL, clusterctlMove, initClusterApi } from './support/clusterctl.js';
import { REPO_ROOT } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { clusterKey, condition, type Kube } from './support/kube.js';
import { kubectl } from './support/kubectl.js';
import { ManagementCluster } from './support/management-cluster.js';
import {
  CONTROLLER_NAMESPACE,
  awsCluster,
  controllerIdentity,
  credentialsRequest,
  externalIDSecret,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
  tagPolicy,
  type KubeObject,
} from './support/objects.js';
import { credentialVending } from './support/rbac-manifests.js';
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
/** The Secrets ops label for clusterctl: static keys and an externalID. */
const LABELLED_SECRETS = [TENANT_A_SECRET, TENANT_B_SECRET];
const TENANTS = ['tenant-a', 'tenant-b'];
const NAMESPACES = [
  namespace('tenant-a', { 'keymaster.dev/tenant': 'tenant-a' }),
  namespace('tenant-b', { 'keymaster.dev/tenant': 'tenant-b' }),
];
const POLICY = tagPolicy([{ key: 'platform-managed', value: 'true', overridePolicy: 'Deny' }]);
/** What clusterctl does not move: the target is prepared with them (docs/operations.md). */
async function unmoved(): Promise<KubeObject[]> {
  return [...NAMESPACES, POLICY, await credentialVending('tenant-b')];
}
/** A workload's credentials in tenant-b: the request moves, its Secret is written again by the target. */
const REQUEST = credentialsRequest('tenant-b', 'reports', {
  identityRef: roleRef('tenant-b'),
  statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
  secretRef: { name: 'reports-aws' },
});
const REQUEST_SECRET = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'reports-aws', namespace: 'tenant-b' } };

/** Waits until the request is Ready, its Secret written; returns the Secret. */
async function untilServed(kube: Kube): Promise<V1Secret> {
  await eventually(async () => {
    const request = await kube.read<AWSCredentialsRequest>(REQUEST);
    expect(condition(request, 'Ready')?.status, JSON.stringify(request.status?.conditions)).to.equal('True');
  });
  return kube.read<V1Secret>(REQUEST_SECRET);
}

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

/** Keymaster's kinds whose CRDs carry a clusterctl label: every object of them is moved (a kind added with one is checked too). */
async function movedKinds(): Promise<V1CustomResourceDefinition[]> {
  const folder = join(REPO_ROOT, 'deploy/crds');
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of (await readdir(folder)).filter((name) => name.endsWith('.yaml')))
    crds.push(...(loadAllYaml(await readFile(join(folder, file), 'utf8')) as V1CustomResourceDefinition[]));
  return crds.filter(({ metadata }) =>
    [MOVE_LABEL, MOVE_HIERARCHY_LABEL].some((label) => label in (metadata?.labels ?? {})),
  );
}

/**
 * What clusterctl must carry, as a user could compare it before and after: every object of those
 * kinds in the moved namespaces (and cluster-scoped), and the Secrets ops labelled, without what the
 * API server sets (UIDs, times, status). Owners by kind and name: their UIDs are new on the target.
 */
async function carried(kube: Kube) {
  const objects: KubernetesObject[] = [];
  for (const secret of LABELLED_SECRETS) objects.push(await kube.read<V1Secret>(secret));
  for (const { spec } of await movedKinds()) {
    const apiVersion = `${spec.group}/${spec.versions.find(({ storage }) => storage)!.name}`;
    for (const where of spec.scope === 'Namespaced' ? TENANTS : [undefined])
      objects.push(...(await kube.list<KubernetesObject>(apiVersion, spec.names.kind, where)));
  }
  return objects.map((object) => {
    const { metadata = {}, kind } = object;
    const { spec, data } = object as { spec?: unknown; data?: unknown };
    return {
      kind,
      namespace: metadata.namespace,
      name: metadata.name,
      labels: metadata.labels,
      annotations: metadata.annotations,
      finalizers: metadata.finalizers,
      owners: metadata.ownerReferences?.map(({ kind: owner, name }) => `${owner}/${name}`),
      spec,
      data,
    };
  });
}

/**
 * docs/operations.md "clusterctl move", step by step, with the real clusterctl (provision-clusterctl.sh)
 * and kubectl between two real kube-apiservers, each holding Cluster API's CRDs and a clusterctl
 * inventory as `clusterctl init` leaves them.
 */
describe('clusterctl move (the real clusterctl, as docs/operations.md says): the target takes over from AWS alone', function () {
  let scenario: Scenario;
  let target: ManagementCluster | undefined;
  let dir: string;
  const kubectlOk = async (cluster: { opsKubeConfig(): string }, ...args: string[]) => {
    const result = await kubectl(dir, cluster.opsKubeConfig(), args);
    expect(result, `kubectl ${args.join(' ')}`).to.include({ code: 0 });
    return result.stdout;
  };

  before(async function () {
    // Between two real kube-apiservers, as users run it: clusterctl is not run against the kube-emulator.
    if (BACKEND !== 'real') this.skip();
    dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-move-'));
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
        ...(await unmoved()),
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
          credentialVending: { allowedNamespaces: { list: ['tenant-b'] } },
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
        REQUEST,
      ],
      syncPeriod: '2s',
      args: ['--log-level', 'debug'],
    });
    await scenario.kube.untilReady(CLUSTERS.length);
    await untilServed(scenario.kube);
    await initClusterApi(scenario.management);
  });

  after(async () => {
    await target?.stop();
    await stopScenarios();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('moves identities, the Secrets ops labelled (keys, an externalID) and the clusters; the target rebuilds every status with zero tag writes', async function () {
    const { kube, aws, controller, management } = scenario;
    const before = await statuses(kube);
    const uids = new Map((await kube.clusters()).map(({ metadata }) => [metadata.name, metadata.uid]));

    // 1. Prepare the target: Keymaster installed and running, the tag policy, the namespaces and their labels.
    target = await ManagementCluster.start(await unmoved());
    await initClusterApi(target);
    const successor = await target.startController({ awsUrl: aws.emulator.url, syncPeriod: '2s' });

    // 2. Pause the AWSClusters.
    for (const ns of TENANTS)
      await kubectlOk(management, 'annotate', 'awsclusters', '-n', ns, '--all', `${PAUSED}=true`);
    await eventually(() => {
      const paused = controller.logged('paused').map((line) => line['cluster']);
      expect(paused).to.include.members(CLUSTERS.map(({ name }) => name));
    });
    aws.emulator.calls.reset();

    // 3. The keys: labelled, then the controller's namespace moved first. 4. Each tenant namespace.
    for (const { metadata } of LABELLED_SECRETS)
      await kubectlOk(management, '-n', CONTROLLER_NAMESPACE, 'label', 'secret', metadata.name, `${MOVE_LABEL}=`);
    const labelled = await carried(kube);
    for (const ns of [CONTROLLER_NAMESPACE, ...TENANTS]) {
      const { stdout, stderr } = await clusterctlMove(management, target, ns);
      expect(`${stdout}${stderr}`, 'what clusterctl printed').not.to.match(/warning/i);
    }
    expect(await kube.clusters(), 'clusterctl deletes what it moved from the source').to.be.empty;
    expect(
      await kube.list(API_VERSION, 'AWSClusterStaticIdentity'),
      'cluster-scoped objects are copied',
    ).to.have.length(1);
    for (const secret of LABELLED_SECRETS) {
      const left = await kube.read(secret).then(
        () => 200,
        (error: unknown) => (error as { code?: number }).code,
      );
      expect(left, `${secret.metadata.name} is moved, not copied`).to.equal(404);
    }
    expect(await carried(target.kube)).to.deep.equal(labelled);

    // 5. Hand over: the source's controller stopped, then the clusters unpaused on the target.
    expect(await controller.stop('SIGTERM')).to.deep.equal({ code: 0, signal: null });
    for (const ns of TENANTS) await kubectlOk(target, 'annotate', 'awsclusters', '-n', ns, '--all', `${PAUSED}-`);

    await eventually(async () => expect(await statuses(target!.kube)).to.deep.equal(before));
    const moved = await target.kube.clusters();
    for (const cluster of moved) expect(cluster.metadata.uid).not.to.equal(uids.get(cluster.metadata.name));
    expect(aws.count('tag:GetResources'), 'the target looked at AWS').to.be.greaterThan(0);
    expect(aws.tagWrites(), 'tag writes since the move').to.equal(0);
    expect(successor.logs.filter(({ level }) => level === 'error')).to.be.empty;
  });

  it("serves the moved AWSCredentialsRequest: a Secret of the target's own, owned by the request's new self", async function () {
    const written = await untilServed(target!.kube);
    const request = await target!.kube.read<AWSCredentialsRequest>(REQUEST);
    expect(written.metadata?.ownerReferences?.map(({ kind, uid }) => ({ kind, uid }))).to.deep.equal([
      { kind: 'AWSCredentialsRequest', uid: request.metadata.uid },
    ]);
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
