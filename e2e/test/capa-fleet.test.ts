import { expect } from 'chai';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE, PAUSED_ANNOTATION, type AWSCluster } from '@keymaster/api';
import { installCapa, renderCapaCluster, type CapaFlavour } from '@keymaster/testenv';
import { dumpYaml, loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import {
  CONTROLLER_USER,
  MANAGEMENT,
  clusterResources,
  controllerUser,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import { CAPA_NAMESPACE, adoptionRbac, capaIdentity } from './support/capa-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady } from './support/kube.js';
import { kubectl } from './support/kubectl.js';
import { namespace, tagPolicy } from './support/objects.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';

const REGION = 'eu-west-1';
const CAPA = 'infrastructure.cluster.x-k8s.io';
/** Four tenants, each its own AWS account, its role, and CAPA's role identity allowing its namespace alone. */
const TENANTS = [
  { name: 'fleet-a', account: '210000000001' },
  { name: 'fleet-b', account: '210000000002' },
  { name: 'fleet-c', account: '210000000003' },
  { name: 'fleet-d', account: '210000000004' },
];
/** 25 clusters a tenant: 20 of CAPA's plain template, 5 of its EKS template. */
const PER_TENANT = 25;
const EKS_PER_TENANT = 5;
/** Tenant D's cluster that names tenant A's CAPA identity: refused. */
const ROGUE = { tenant: 'fleet-d', name: 'fleet-d-24' };
const RESOURCES_PER_CLUSTER = 2;

interface FleetCluster {
  tenant: (typeof TENANTS)[number];
  name: string;
  flavour: CapaFlavour;
  /** The name in its resources' ownership tags: the Cluster's, or CAPA's default EKS name. */
  clusterName: string;
}

const FLEET: FleetCluster[] = TENANTS.flatMap((tenant) =>
  Array.from({ length: PER_TENANT }, (_, index) => {
    const name = `${tenant.name}-${index}`;
    const flavour: CapaFlavour = index < EKS_PER_TENANT ? 'eks' : 'plain';
    const clusterName = flavour === 'eks' ? `${tenant.name}_${name}-control-plane` : name;
    return { tenant, name, flavour, clusterName };
  }),
);
const resourcesOf = ({ tenant, clusterName }: FleetCluster) =>
  clusterResources(tenant.account, REGION, clusterName, RESOURCES_PER_CLUSTER);
const find = (tenant: string, name: string) => FLEET.find((item) => item.tenant.name === tenant && item.name === name)!;

/** What tenants may do with Cluster API's and CAPA's objects in their namespace, as a platform grants it. */
const clusterApiEditor = (tenant: string): KubernetesObject[] => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'cluster-api-editor', namespace: tenant },
    rules: [
      {
        apiGroups: [
          'cluster.x-k8s.io',
          CAPA,
          'controlplane.cluster.x-k8s.io',
          'bootstrap.cluster.x-k8s.io',
          'addons.cluster.x-k8s.io',
        ],
        resources: ['*'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      // CAPA's plain template brings its cloud provider's add-ons as ConfigMaps.
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'patch'] },
    ],
  } as KubernetesObject,
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'cluster-api-editor', namespace: tenant },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cluster-api-editor' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `${tenant}-developers` }],
  } as KubernetesObject,
];

/**
 * A cluster as its tenant writes it: CAPA's own template (clusterctl generate cluster), its infrastructure
 * naming the tenant's CAPA identity (`identity`, the tenant's own unless a test says otherwise).
 */
async function renderedCluster(cluster: FleetCluster, identity = cluster.tenant.name): Promise<string> {
  const text = await renderCapaCluster({
    flavour: cluster.flavour,
    name: cluster.name,
    namespace: cluster.tenant.name,
    variables: { AWS_REGION: REGION },
  });
  const objects = loadAllYaml(text) as (KubernetesObject & { spec?: Record<string, unknown> })[];
  for (const object of objects)
    if (object.kind === 'AWSCluster' || object.kind === 'AWSManagedControlPlane')
      object.spec = { ...object.spec, identityRef: { kind: 'AWSClusterRoleIdentity', name: identity } };
  return objects.map((object) => dumpYaml(object)).join('---\n');
}

/**
 * Issue 26's proof: 100 clusters of four tenants written as CAPA's plain and EKS templates, applied by the
 * tenants themselves under real RBAC after Keymaster started with --adopt-cluster-api, are governed with
 * no Keymaster object written by anyone but Keymaster, at the STS calls Keymaster's own AWSClusters cost;
 * a tenant naming another tenant's CAPA identity is refused; a deleted Cluster is released, a paused one
 * left alone.
 */
describe('a fleet of 100 CAPA clusters of four tenants, adopted', function () {
  this.timeout(600_000);
  let tenancy: Tenancy;
  const asTenant = async (tenant: string, args: string[], stdin?: string) => {
    const result = await kubectl(
      tenancy.management.dir,
      tenancy.management.tenantKubeConfig(tenant),
      ['-n', tenant, ...args],
      stdin,
    );
    expect(result.code, `kubectl ${args.join(' ')} as ${tenant}: ${result.stderr}`).to.equal(0);
  };
  const companions = async (): Promise<AWSCluster[]> =>
    (await tenancy.ops.clusters()).filter(({ metadata }) => metadata.namespace?.startsWith('fleet-'));

  before(async function () {
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()] },
          ...TENANTS.map(({ name, account }) => ({
            id: account,
            roles: [tenantRole(`${name}-capa`, CONTROLLER_USER)],
            resources: FLEET.filter((cluster) => cluster.tenant.name === name).flatMap(resourcesOf),
          })),
        ],
      },
      tenants: TENANTS.map(({ name }) => ({ name })),
      objects: [
        ...TENANTS.map(({ name }) => namespace(name, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE })),
        namespace(CAPA_NAMESPACE),
        tagPolicy([{ key: 'platform', value: 'keymaster' }]),
      ],
      // As a platform running CAPA has it before Keymaster comes: the CRDs, CAPA's identities, and the
      // tenants' rights on Cluster API's objects; then Keymaster's deploy/cluster-api.
      beforeController: async (management) => {
        await installCapa(management.opsKubeConfig());
        await management.install([
          ...(await adoptionRbac()),
          ...TENANTS.flatMap(({ name }) => clusterApiEditor(name)),
          capaIdentity('AWSClusterControllerIdentity', 'default', {
            allowedNamespaces: { list: TENANTS.map(({ name }) => name) },
          }),
          ...TENANTS.map(({ name, account }) =>
            capaIdentity('AWSClusterRoleIdentity', name, {
              roleARN: roleArn(account, `${name}-capa`),
              sourceIdentityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
              allowedNamespaces: { list: [name] },
            }),
          ),
        ]);
      },
      args: ['--adopt-cluster-api'],
      syncPeriod: '10s',
    });
    // Each tenant applies its clusters with kubectl, after Keymaster started.
    for (const tenant of TENANTS) {
      const own = FLEET.filter((cluster) => cluster.tenant === tenant);
      const texts = await Promise.all(
        own.map((cluster) => renderedCluster(cluster, cluster.name === ROGUE.name ? TENANTS[0]!.name : tenant.name)),
      );
      await asTenant(tenant.name, ['apply', '-f', '-'], texts.join('---\n'));
    }
  });

  after(stopTenancies);

  it('governs every cluster with nothing but the companions Keymaster wrote, through each tenant’s CAPA identity', async () => {
    await eventually(
      async () => {
        const all = await companions();
        expect(all, 'companions').to.have.length(FLEET.length);
        expect(all.filter(isReady), 'Ready').to.have.length(FLEET.length - 1);
      },
      { timeoutMs: 300_000 },
    );
    for (const companion of await companions()) {
      const { namespace: ns = '', name = '' } = companion.metadata;
      // Keymaster's alone: owned by the Cluster of its name, spec.clusterAPI naming it.
      expect(
        companion.metadata.ownerReferences?.map(({ kind, name: owner }) => `${kind}/${owner}`),
        name,
      ).to.deep.equal([`Cluster/${name}`]);
      expect(companion.spec.clusterAPI?.clusterRef.name, name).to.equal(name);
      expect(companion.spec.clusterName, name).to.equal(find(ns, name).clusterName);
    }
    for (const cluster of FLEET.filter(({ name }) => name !== ROGUE.name))
      for (const { arn } of resourcesOf(cluster))
        expect(tenancy.aws.tags(arn), `${cluster.name} ${arn}`).to.include({ platform: 'keymaster' });
    // Each tenant's role assumed once, as for Keymaster's own AWSClusters of one identity.
    expect(tenancy.aws.count('sts:AssumeRole')).to.equal(TENANTS.length);
  });

  it("refuses tenant D's cluster that names tenant A's CAPA identity: no AssumeRole for it, no tag", async () => {
    const rogue = await tenancy.ops.cluster(ROGUE.tenant, ROGUE.name);
    expect(condition(rogue, 'PrincipalUsageAllowed')).to.include({
      status: 'False',
      reason: 'PrincipalUsageUnauthorized',
    });
    for (const { arn } of resourcesOf(find(ROGUE.tenant, ROGUE.name)))
      expect(tenancy.aws.tags(arn)).to.not.have.property('platform');
  });

  it('leaves a paused Cluster alone and releases a deleted one, while the rest follow a policy edit', async () => {
    const paused = find('fleet-b', 'fleet-b-10');
    const deleted = find('fleet-c', 'fleet-c-10');
    await asTenant(paused.tenant.name, [
      'patch',
      'clusters.cluster.x-k8s.io',
      paused.name,
      '--type=merge',
      '-p',
      '{"spec":{"paused":true}}',
    ]);
    await eventually(async () =>
      expect((await tenancy.ops.cluster(paused.tenant.name, paused.name)).metadata.annotations).to.have.property(
        PAUSED_ANNOTATION,
      ),
    );
    await asTenant(deleted.tenant.name, ['delete', 'clusters.cluster.x-k8s.io', deleted.name]);
    await eventually(async () =>
      expect((await companions()).map(({ metadata }) => metadata.name)).to.not.include(deleted.name),
    );
    await tenancy.ops.patch(tagPolicy([]), { spec: { resourceTags: [{ key: 'platform', value: 'keymaster-2' }] } });
    const followers = FLEET.filter(({ name }) => ![ROGUE.name, paused.name, deleted.name].includes(name));
    await eventually(
      () => {
        for (const cluster of followers)
          for (const { arn } of resourcesOf(cluster))
            expect(tenancy.aws.tags(arn), `${cluster.name} ${arn}`).to.include({ platform: 'keymaster-2' });
      },
      { timeoutMs: 300_000 },
    );
    // The paused cluster's and the released one's resources keep what Keymaster wrote before.
    for (const cluster of [paused, deleted])
      for (const { arn } of resourcesOf(cluster))
        expect(tenancy.aws.tags(arn), `${cluster.name} ${arn}`).to.include({ platform: 'keymaster' });
  });
});
