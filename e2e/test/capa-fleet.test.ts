import { expect } from 'chai';
import {
  ADOPT_LABEL,
  ADOPT_LABEL_VALUE,
  CLUSTER_CLASS_LABEL,
  PAUSED_ANNOTATION,
  type AWSCluster,
} from '@keymaster/api';
import { renderCapaCluster, type CapaFlavour } from '@keymaster/testenv';
import { dumpYaml, loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
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
  installCapaWith,
  type Unstructured,
} from './support/capa-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady, type Kube } from './support/kube.js';
import { kubectl } from './support/kubectl.js';
import { namespace, selectedTagPolicy, tagPolicy } from './support/objects.js';
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

/** kubectl as a tenant's developers, in its namespace, as they apply and edit their clusters; a refusal fails the test. */
async function asTenant(tenancy: Tenancy, tenant: string, args: string[], stdin?: string): Promise<void> {
  const { management } = tenancy;
  const result = await kubectl(management.dir, management.tenantKubeConfig(tenant), ['-n', tenant, ...args], stdin);
  expect(result.code, `kubectl ${args.join(' ')} as ${tenant}: ${result.stderr}`).to.equal(0);
}

/** The companions of the tenants whose namespaces start with `prefix`. */
const companionsOf = async (tenancy: Tenancy, prefix: string): Promise<AWSCluster[]> =>
  (await tenancy.ops.clusters()).filter(({ metadata }) => metadata.namespace?.startsWith(prefix));

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
  const companions = () => companionsOf(tenancy, 'fleet-');

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
      // As a platform running CAPA has it before Keymaster comes: the CRDs, Keymaster's deploy/cluster-api,
      // the tenants' rights on Cluster API's objects and CAPA's identities.
      beforeController: (management) =>
        installCapaWith(management, [
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
        ]),
      args: ['--adopt-cluster-api'],
      syncPeriod: '10s',
    });
    // Each tenant applies its clusters with kubectl, after Keymaster started.
    for (const tenant of TENANTS) {
      const own = FLEET.filter((cluster) => cluster.tenant === tenant);
      const texts = await Promise.all(
        own.map((cluster) => renderedCluster(cluster, cluster.name === ROGUE.name ? TENANTS[0]!.name : tenant.name)),
      );
      await asTenant(tenancy, tenant.name, ['apply', '-f', '-'], texts.join('---\n'));
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
    // Companions written by as many workers as the AWSClusters are reconciled by (--max-concurrent-reconciles).
    expect(
      await tenancy.controller.metric('controller_runtime_max_concurrent_reconciles', { controller: 'adoption' }),
    ).to.equal(
      await tenancy.controller.metric('controller_runtime_max_concurrent_reconciles', { controller: 'awscluster' }),
    );
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
    await asTenant(tenancy, paused.tenant.name, [
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
    await asTenant(tenancy, deleted.tenant.name, ['delete', 'clusters.cluster.x-k8s.io', deleted.name]);
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

/** Two tenants of CAPA's multitenancy-clusterclass template, their own AWS accounts, and one plain cluster each. */
const CLASS_TENANTS = [
  { name: 'class-a', account: '220000000001' },
  { name: 'class-b', account: '220000000002' },
];
/** The ClusterClass CAPA's template defines. */
const CLASS = 'multi-tenancy';
const CLASS_PER_TENANT = 2;
/** The template's chain: its nested role identity, sourced from its jump role identity, from CAPA's controller identity. */
const jumpRole = (tenant: string) => `${tenant}-jump`;
const nestedRole = (tenant: string) => `${tenant}-nested`;

const CLASS_FLEET: FleetCluster[] = CLASS_TENANTS.flatMap((tenant) => [
  ...Array.from({ length: CLASS_PER_TENANT }, (_, index) => {
    const name = `${tenant.name}-${index}`;
    return { tenant, name, flavour: 'multitenancy-clusterclass' as const, clusterName: name };
  }),
  { tenant, name: `${tenant.name}-plain`, flavour: 'plain' as const, clusterName: `${tenant.name}-plain` },
]);
const ofClass = CLASS_FLEET.filter(({ flavour }) => flavour === 'multitenancy-clusterclass');

/** Sets `value` at a JSON pointer, making the objects on the way, as the ClusterClass's patches end up. */
function setAt(object: Record<string, unknown>, pointer: string, value: unknown): void {
  const keys = pointer.split('/').slice(1);
  const last = keys.pop()!;
  let at = object;
  for (const key of keys) at = (at[key] ??= {}) as Record<string, unknown>;
  at[last] = value;
}

/** What the topology controller reads of a v1beta1 ClusterClass (its infrastructure's template and its patches). */
interface ClusterClassSpec {
  infrastructure: { ref: { apiVersion: string; kind: string; name: string } };
  patches: {
    definitions: {
      selector: { kind: string; matchResources: { infrastructureCluster?: boolean } };
      jsonPatches: { path: string; valueFrom: { variable: string } }[];
    }[];
  }[];
}

/**
 * Plays Cluster API's topology controller (v1.14, which the e2e does not run) for a topology Cluster,
 * as its desiredstate.computeInfrastructureCluster and templateToObject do: from the ClusterClass's
 * AWSClusterTemplate, an AWSCluster named `<cluster>-<5 random>`, labelled with the Cluster's name and
 * `topology.cluster.x-k8s.io/owned`, annotated with the template it was cloned from, its spec the
 * template's with the class's patches of the infrastructure cluster applied from the Cluster's
 * variables, owned by the Cluster as its controller (what the Cluster controller's ensureOwnerRefAndLabel
 * sets once the Cluster names it); then the Cluster's `spec.infrastructureRef` as v1beta2 keeps it. The
 * ClusterClass is the tenant's rendered one: with no conversion webhook its stored v1beta2 lost the refs.
 */
async function playTopologyController(ops: Kube, clusterClass: Unstructured, namespace: string, name: string) {
  const cluster = await ops.read<Unstructured>({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name, namespace },
  });
  const topology = cluster.spec!['topology'] as { variables: { name: string; value: unknown }[] };
  const classSpec = clusterClass.spec as unknown as ClusterClassSpec;
  const templateRef = classSpec.infrastructure.ref;
  const template = await ops.read<Unstructured>({ ...templateRef, metadata: { name: templateRef.name, namespace } });
  const spec = structuredClone((template.spec as { template: { spec: Record<string, unknown> } }).template.spec);
  const variables = new Map(topology.variables.map(({ name: variable, value }) => [variable, value]));
  for (const { definitions } of classSpec.patches)
    for (const { selector, jsonPatches } of definitions)
      if (selector.kind === templateRef.kind && selector.matchResources.infrastructureCluster)
        for (const { path, valueFrom } of jsonPatches)
          if (variables.has(valueFrom.variable))
            setAt({ spec: { template: { spec } } }, path, variables.get(valueFrom.variable));
  const infrastructureName = `${name}-${Math.random().toString(36).slice(2, 7)}`;
  await ops.create({
    apiVersion: templateRef.apiVersion,
    kind: 'AWSCluster',
    metadata: {
      name: infrastructureName,
      namespace,
      labels: { 'cluster.x-k8s.io/cluster-name': name, 'topology.cluster.x-k8s.io/owned': '' },
      annotations: {
        'cluster.x-k8s.io/cloned-from-name': templateRef.name,
        'cluster.x-k8s.io/cloned-from-groupkind': `${templateRef.kind}.${CAPA}`,
      },
      ownerReferences: [
        {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          name,
          uid: cluster.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec,
  });
  await ops.patch(
    { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name, namespace } },
    { spec: { infrastructureRef: { apiGroup: CAPA, kind: 'AWSCluster', name: infrastructureName } } },
  );
  return infrastructureName;
}

/**
 * Issue 26's ClusterClass flavour: clusters written as CAPA's multitenancy-clusterclass template (its
 * ClusterClass, templates and topology Cluster applied by the tenants; its chained role identities,
 * cluster-scoped, by ops for them), beside a plain cluster each, are governed through the template's
 * chain, labelled with their class, and a policy selecting the class reaches them alone.
 */
describe("CAPA's multitenancy-clusterclass clusters of two tenants, adopted", function () {
  this.timeout(600_000);
  let tenancy: Tenancy;
  /** The AWSCluster stamped for each topology Cluster, by name. */
  const infrastructure = new Map<string, string>();
  const companions = () => companionsOf(tenancy, 'class-');

  before(async function () {
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()] },
          ...CLASS_TENANTS.map(({ name, account }) => ({
            id: account,
            roles: [
              // The jump role may only assume the nested one, which tags.
              { ...tenantRole(jumpRole(name), CONTROLLER_USER), allow: ['sts:AssumeRole'] },
              tenantRole(nestedRole(name), roleArn(account, jumpRole(name))),
            ],
            resources: CLASS_FLEET.filter((cluster) => cluster.tenant.name === name).flatMap(resourcesOf),
          })),
        ],
      },
      tenants: CLASS_TENANTS.map(({ name }) => ({ name })),
      objects: [
        ...CLASS_TENANTS.map(({ name }) => namespace(name, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE })),
        namespace(CAPA_NAMESPACE),
        tagPolicy([{ key: 'platform', value: 'keymaster' }]),
        selectedTagPolicy('by-class', { clusterSelector: { matchLabels: { [CLUSTER_CLASS_LABEL]: CLASS } } }, [
          { key: 'cluster-class', value: CLASS },
        ]),
      ],
      beforeController: (management) =>
        installCapaWith(management, [
          ...CLASS_TENANTS.flatMap(({ name }) => clusterApiEditor(name)),
          capaIdentity('AWSClusterControllerIdentity', 'default', {
            allowedNamespaces: { list: CLASS_TENANTS.map(({ name }) => name) },
          }),
        ]),
      args: ['--adopt-cluster-api'],
      syncPeriod: '10s',
    });
    for (const tenant of CLASS_TENANTS) {
      const own = CLASS_FLEET.filter((cluster) => cluster.tenant === tenant);
      const objects: Unstructured[] = [];
      for (const cluster of own) {
        if (cluster.flavour === 'plain') {
          // On the nested identity of the tenant's first class cluster: the same chain, no new session.
          objects.push(...(loadAllYaml(await renderedCluster(cluster, `nested-${tenant.name}-0`)) as Unstructured[]));
          continue;
        }
        const text = await renderCapaCluster({
          flavour: cluster.flavour,
          name: cluster.name,
          namespace: tenant.name,
          variables: {
            AWS_REGION: REGION,
            MULTI_TENANCY_JUMP_ROLE_ARN: roleArn(tenant.account, jumpRole(tenant.name)),
            MULTI_TENANCY_NESTED_ROLE_ARN: roleArn(tenant.account, nestedRole(tenant.name)),
          },
        });
        for (const object of loadAllYaml(text) as Unstructured[])
          objects.push(object.kind === 'Cluster' ? clusterAsStoredAtV1beta2(object) : object);
      }
      // The role identities are cluster-scoped, beyond a tenant's rights: ops create them, for its namespace
      // alone (the template's `{}` would allow every namespace).
      const identities = objects.filter(({ kind }) => kind === 'AWSClusterRoleIdentity');
      await tenancy.ops.create(
        ...identities.map(({ metadata, spec, ...rest }) => ({
          ...rest,
          metadata: { name: metadata!.name },
          spec: { ...spec, allowedNamespaces: { list: [tenant.name] } },
        })),
      );
      const tenantObjects = objects.filter(({ kind }) => kind !== 'AWSClusterRoleIdentity');
      await asTenant(
        tenancy,
        tenant.name,
        ['apply', '-f', '-'],
        tenantObjects.map((object) => dumpYaml(object)).join('---\n'),
      );
      const clusterClass = objects.find(({ kind }) => kind === 'ClusterClass')!;
      for (const { name } of ofClass.filter((cluster) => cluster.tenant === tenant))
        infrastructure.set(name, await playTopologyController(tenancy.ops, clusterClass, tenant.name, name));
    }
  });

  after(stopTenancies);

  it('labels the topology clusters’ companions with their ClusterClass, and the plain ones not', async () => {
    await eventually(
      async () => {
        const all = await companions();
        expect(all, 'companions').to.have.length(CLASS_FLEET.length);
        expect(all.filter(isReady), 'Ready').to.have.length(CLASS_FLEET.length);
      },
      { timeoutMs: 300_000 },
    );
    for (const companion of await companions()) {
      const { name = '' } = companion.metadata;
      const stamped = infrastructure.get(name);
      expect(companion.metadata.labels?.[CLUSTER_CLASS_LABEL], name).to.equal(stamped ? CLASS : undefined);
      if (stamped) {
        expect(companion.spec.clusterAPI?.infrastructureRef.name, name).to.equal(stamped);
        expect(companion.spec.identityRef?.name, name).to.equal(`nested-${name}`);
      }
    }
  });

  it('tags the class’s clusters alone by the policy selecting their ClusterClass', async () => {
    await eventually(
      () => {
        for (const cluster of CLASS_FLEET)
          for (const { arn } of resourcesOf(cluster)) {
            const tags = tenancy.aws.tags(arn);
            expect(tags, `${cluster.name} ${arn}`).to.include({ platform: 'keymaster' });
            if (cluster.flavour === 'plain')
              expect(tags, `${cluster.name} ${arn}`).to.not.have.property('cluster-class');
            else expect(tags, `${cluster.name} ${arn}`).to.include({ 'cluster-class': CLASS });
          }
      },
      { timeoutMs: 300_000 },
    );
  });

  it('follows the template’s chain, jump then nested role, with one AssumeRole per role identity', async () => {
    const expected = ofClass
      .flatMap(({ tenant, name }) => [
        CONTROLLER_USER,
        `arn:aws:sts::${tenant.account}:assumed-role/${jumpRole(tenant.name)}/jump-${name}`,
      ])
      .sort();
    // Every companion Ready has its session: the chain's calls are all made.
    await eventually(async () => expect((await companions()).filter(isReady)).to.have.length(CLASS_FLEET.length), {
      timeoutMs: 300_000,
    });
    const callers = tenancy.aws.calls(({ action }) => action === 'sts:AssumeRole').map(({ callerArn }) => callerArn);
    expect(callers.sort()).to.deep.equal(expected);
  });
});
