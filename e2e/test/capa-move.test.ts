import { expect } from 'chai';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE, type AWSCluster } from '@keymaster/api';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { renderCapaCluster, type CapaFlavour } from '@keymaster/testenv';
import { dumpYaml, loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { AwsFacts } from './support/aws-facts.js';
import {
  CONTROLLER_USER,
  MANAGEMENT,
  clusterResources,
  controllerUser,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import {
  CAPA_NAMESPACE,
  capaIdentity,
  clusterAsStoredAtV1beta2,
  ownedByCluster,
  installCapaWith,
  type Unstructured,
} from './support/capa-world.js';
import { clusterctlMove, writeInventory } from './support/clusterctl.js';
import type { ControllerProcess } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { isReady } from './support/kube.js';
import { kubectl } from './support/kubectl.js';
import { namespace, tagPolicy } from './support/objects.js';
import { RbacManagementCluster } from './support/rbac-management-cluster.js';

const TENANT = 'tenant-a';
const ACCOUNT = '222222222222';
const REGION = 'eu-west-1';
const ROLE = 'tenant-a-capa';
const SYNC_PERIOD = '2s';
const LEDGER = { apiVersion: 'infrastructure.keymaster.dev/v1beta1', kind: 'AWSClusterLedger' };
/** CAPA's plain and EKS templates; the EKS one's resources carry CAPA's default EKS name. */
const CLUSTERS: { name: string; flavour: CapaFlavour; clusterName: string }[] = [
  { name: 'web', flavour: 'plain', clusterName: 'web' },
  { name: 'orders', flavour: 'eks', clusterName: `${TENANT}_orders-control-plane` },
];
const resourcesOf = (clusterName: string) => clusterResources(ACCOUNT, REGION, clusterName, 2);
const ARNS = CLUSTERS.flatMap(({ clusterName }) => resourcesOf(clusterName).map(({ arn }) => arn));

/** What ops install on each management cluster: the namespaces (the tenant's labelled), the policy, CAPA's identities. */
const PREPARED = [
  namespace(TENANT, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE }),
  namespace(CAPA_NAMESPACE),
  tagPolicy([{ key: 'platform', value: 'keymaster' }]),
];
const CAPA_IDENTITIES = [
  capaIdentity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: [TENANT] } }),
  capaIdentity('AWSClusterRoleIdentity', TENANT, {
    roleARN: roleArn(ACCOUNT, ROLE),
    sourceIdentityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
    allowedNamespaces: { list: [TENANT] },
  }),
];

/** A Cluster's status as Cluster API's controllers write it once its infrastructure and control plane are up. */
const PROVISIONED = {
  initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
  conditions: [
    {
      type: 'ControlPlaneInitialized',
      status: 'True',
      reason: 'Initialized',
      message: '',
      lastTransitionTime: '2026-11-28T00:00:00Z',
    },
  ],
};

/** CAPA's own kinds, served at v1beta2 as the templates write them. */
const CAPA_KINDS = ['AWSCluster', 'AWSManagedCluster', 'AWSManagedControlPlane'];

/**
 * A cluster as the tenant writes it: CAPA's template, its infrastructure naming CAPA's role identity.
 * Only the Cluster and CAPA's objects of it: its machines' v1beta1 kinds would need the conversion
 * webhook too, and neither Keymaster nor this proof reads them.
 */
async function rendered({ name, flavour }: (typeof CLUSTERS)[number]): Promise<string> {
  const objects = loadAllYaml(
    await renderCapaCluster({ flavour, name, namespace: TENANT, variables: { AWS_REGION: REGION } }),
  ) as Unstructured[];
  const kept = objects.flatMap((object): Unstructured[] => {
    if (object.kind === 'Cluster') return [clusterAsStoredAtV1beta2(object)];
    if (!CAPA_KINDS.includes(object.kind ?? '')) return [];
    if (object.kind === 'AWSManagedCluster') return [object];
    return [{ ...object, spec: { ...object.spec, identityRef: { kind: 'AWSClusterRoleIdentity', name: TENANT } } }];
  });
  return kept.map((object) => dumpYaml(object)).join('---\n');
}

/** A management cluster running CAPA as ops set it up, and Keymaster with --adopt-cluster-api. */
async function managementCluster(
  awsUrl: string,
): Promise<{ cluster: RbacManagementCluster; controller: ControllerProcess }> {
  const cluster = await RbacManagementCluster.start({ tenants: [], objects: PREPARED });
  await installCapaWith(cluster, CAPA_IDENTITIES);
  await writeInventory(cluster);
  const controller = await cluster.startController({ awsUrl, args: ['--adopt-cluster-api'], syncPeriod: SYNC_PERIOD });
  return { cluster, controller };
}

const companions = async (cluster: RbacManagementCluster): Promise<AWSCluster[]> =>
  (await cluster.ops.clusters()).filter(({ metadata }) => metadata.namespace === TENANT);

/**
 * Issue 26: `clusterctl move --namespace` (the real clusterctl) of a namespace of CAPA clusters, from
 * CAPA's templates, between two management clusters running Keymaster with --adopt-cluster-api. No
 * controller of Cluster API or CAPA runs: clusterctl pauses the Clusters itself, and Keymaster is the
 * only controller reacting to what it moves.
 */
describe('clusterctl move of a namespace of CAPA clusters, adopted on both sides', function () {
  let aws: AwsEmulator;
  let facts: AwsFacts;
  let source: { cluster: RbacManagementCluster; controller: ControllerProcess };
  let target: { cluster: RbacManagementCluster; controller: ControllerProcess } | undefined;
  let written: Record<string, Record<string, string>>;

  before(async () => {
    aws = await startAwsEmulator({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()] },
          {
            id: ACCOUNT,
            roles: [tenantRole(ROLE, CONTROLLER_USER)],
            resources: CLUSTERS.flatMap(({ clusterName }) => resourcesOf(clusterName)),
          },
        ],
      },
    });
    facts = new AwsFacts(aws);
    source = await managementCluster(aws.url);
    const text = (await Promise.all(CLUSTERS.map(rendered))).join('---\n');
    const applied = await kubectl(source.cluster.dir, source.cluster.opsKubeConfig(), ['apply', '-f', '-'], text);
    expect(applied, 'kubectl apply').to.include({ code: 0 });
    // What Cluster API's controllers, which no test runs, report once CAPA provisioned a cluster:
    // clusterctl moves no Cluster still provisioning.
    const patch = async (args: string[]) => {
      const patched = await kubectl(source.cluster.dir, source.cluster.opsKubeConfig(), [
        'patch',
        '-n',
        TENANT,
        ...args,
      ]);
      expect(patched, `kubectl patch ${args.join(' ')}: ${patched.stderr}`).to.include({ code: 0 });
    };
    for (const { name } of CLUSTERS) {
      await patch([
        'clusters.cluster.x-k8s.io',
        name,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: PROVISIONED }),
      ]);
      // And what Cluster API's Cluster controller sets on the objects the Cluster names.
      const cluster = await source.cluster.ops.read<KubernetesObject>({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: TENANT, name },
      });
      const owned = ownedByCluster(name, cluster.metadata!.uid!);
      const { infrastructureRef, controlPlaneRef } = (cluster as Unstructured).spec as Record<
        string,
        { kind: string; name: string }
      >;
      for (const ref of [infrastructureRef!, controlPlaneRef!].filter(({ kind }) => CAPA_KINDS.includes(kind)))
        await patch([
          `${ref.kind.toLowerCase()}s.${ref.kind === 'AWSManagedControlPlane' ? 'controlplane' : 'infrastructure'}.cluster.x-k8s.io`,
          ref.name,
          '--type=merge',
          '-p',
          JSON.stringify(owned),
        ]);
    }
  });

  after(async () => {
    await target?.cluster.stop();
    await source.cluster.stop();
    await aws.stop();
  });

  it('governs the clusters on the source: companions Ready, their resources tagged', async () => {
    await eventually(async () => {
      const all = await companions(source.cluster);
      expect(all.map(({ metadata }) => metadata.name)).to.have.members(CLUSTERS.map(({ name }) => name));
      expect(all.filter(isReady), 'Ready').to.have.length(CLUSTERS.length);
    });
    for (const arn of ARNS) expect(facts.tags(arn), arn).to.include({ platform: 'keymaster' });
    written = Object.fromEntries(ARNS.map((arn) => [arn, { ...facts.tags(arn) }]));
  });

  it('moves them with clusterctl; the source releases them without removing a tag, leaving no companion or ledger', async () => {
    target = await managementCluster(aws.url);
    aws.calls.reset();
    await clusterctlMove(source.cluster, target.cluster, TENANT);

    // clusterctl deletes what it moved from the source, finalizers first: no work of the source's is left.
    await eventually(async () => {
      expect(await companions(source.cluster), 'companions on the source').to.be.empty;
      expect(await source.cluster.ops.list(LEDGER.apiVersion, LEDGER.kind, TENANT), 'ledgers on the source').to.be
        .empty;
    });
    expect(facts.count('tag:UntagResources') + facts.count('ec2:DeleteTags'), 'tag removals').to.equal(0);
    for (const arn of ARNS) expect(facts.tags(arn), arn).to.deep.equal(written[arn]);
  });

  it('governs every moved cluster on the target with no object written by hand, with no tag written', async () => {
    const { cluster } = target!;
    await eventually(async () => {
      const all = await companions(cluster);
      expect(all.map(({ metadata }) => metadata.name)).to.have.members(CLUSTERS.map(({ name }) => name));
      expect(
        all.filter(isReady).map(({ metadata }) => metadata.name),
        JSON.stringify(all.map(({ status }) => status?.conditions)),
      ).to.have.length(CLUSTERS.length);
    });
    for (const companion of await companions(cluster)) {
      const [owner] = companion.metadata.ownerReferences ?? [];
      const moved = await cluster.ops.read<KubernetesObject>({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: TENANT, name: companion.metadata.name },
      });
      expect(owner, companion.metadata.name).to.include({
        kind: 'Cluster',
        uid: moved.metadata!.uid,
        controller: true,
      });
    }
    for (const arn of ARNS) expect(facts.tags(arn), arn).to.deep.equal(written[arn]);
    expect(facts.tagWrites(), 'tag writes since the move').to.equal(0);
    // One role in the chain (CAPA's role identity), assumed once by the target; the source assumes none.
    expect(facts.count('sts:AssumeRole'), 'AssumeRole since the move').to.be.at.most(1);
    expect(target!.controller.logs.filter(({ level }) => level === 'error')).to.be.empty;
  });
});
