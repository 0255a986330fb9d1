import { expect } from 'chai';
import type { AWSCluster, ResourceTag } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
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
} from './aws-world.js';
import type { KeymasterTree } from './controller-process.js';
import { eventually } from './eventually.js';
import type { Fleet } from './fleet.js';
import { clusterKey, condition } from './kube.js';
import {
  awsCluster,
  controllerIdentity,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
  tagPolicy,
  type KubeObject,
} from './objects.js';

/**
 * A fleet as release 0.2.0 ran it, with every kind of state it kept: static keys, a role chain through
 * a hub with externalIDs, two tenants contending for one cluster name in an account ops shared,
 * Retain and Delete, a Deny key, tags of other tools, a paused cluster.
 */

const TENANT_A = '222222222222';
/** One account for tenants B and C (ops shared it): their clusters of one clusterName contend for it. */
export const SHARED = '333333333333';
const A_KEY = accessKey('upgrade/tenant-a');
export const TENANT_LABEL = 'keymaster.dev/tenant';
export const PAUSED = 'cluster.x-k8s.io/paused';
/** What 0.2.0 kept on each resource it tagged: whose the cluster name is, and what it wrote per layer. */
export const LEGACY_KEYS = [
  'keymaster.dev/claim',
  'keymaster.dev/applied-global',
  'keymaster.dev/applied-account',
  'keymaster.dev/applied-cluster',
];
/** Tags another tool set on every resource: nobody's business but theirs. */
export const FOREIGN = { backup: 'daily', 'owner-tool': 'terraform' };
/** The tag policy: a Deny key every cluster gets whatever it asks, and a plain one. */
const POLICY: ResourceTag[] = [
  { key: 'cost-center', value: 'platform', overridePolicy: 'Deny' },
  { key: 'managed-by', value: 'keymaster' },
];

export interface FleetCluster {
  namespace: string;
  name: string;
  account: string;
  region: string;
  /** spec.clusterName, when not the name. */
  clusterName?: string;
  additionalTags: Record<string, string>;
  removalPolicy?: 'Delete';
  /** Its resources' ARNs (none for a cluster whose name another owns: those are the owner's). */
  arns: string[];
}

const fleetCluster = (c: Omit<FleetCluster, 'arns'>, resources: number): FleetCluster => ({
  ...c,
  arns: clusterResources(c.account, c.region, c.clusterName ?? c.name, resources, FOREIGN).map(({ arn }) => arn),
});

/**
 * Static keys, Retain, and a Deny conflict: it asks for its own cost-center, the policy's wins. It
 * holds a reserved key too (`Name`), which 0.2.0 accepted and left out, and this release's CRD refuses.
 */
export const RETAIN = fleetCluster(
  {
    namespace: 'tenant-a',
    name: 'a-retain',
    account: TENANT_A,
    region: 'us-west-2',
    additionalTags: { team: 'a-retain', 'cost-center': 'tenant-a', 'keep-me': 'yes', Name: 'a-retain' },
  },
  3,
);
/** Paused by ops (cluster.x-k8s.io/paused) before the upgrade: nothing of it is touched until unpaused. */
export const PAUSED_CLUSTER = fleetCluster(
  {
    namespace: 'tenant-a',
    name: 'a-paused',
    account: TENANT_A,
    region: 'us-west-2',
    additionalTags: { team: 'a-paused' },
  },
  2,
);
/** Deleted while no controller runs: held by 0.2.0's finalizer until a controller releases it. */
export const DELETED = fleetCluster(
  { namespace: 'tenant-a', name: 'a-gone', account: TENANT_A, region: 'us-west-2', additionalTags: { team: 'a-gone' } },
  2,
);
/** Through the hub with B's externalID; owns clusterName "shared" by its claim tag, though the younger. */
export const OWNER = fleetCluster(
  {
    namespace: 'tenant-b',
    name: 'b-owner',
    clusterName: 'shared',
    account: SHARED,
    region: 'eu-west-1',
    additionalTags: { team: 'b-owner' },
  },
  3,
);
/** Tenant C's cluster of the same clusterName, the older, paused until B's claimed the name: refused since. */
export const RIVAL = fleetCluster(
  {
    namespace: 'tenant-c',
    name: 'c-rival',
    clusterName: 'shared',
    account: SHARED,
    region: 'eu-west-1',
    additionalTags: { team: 'c-rival' },
  },
  0,
);
/** removalPolicy Delete: a key it drops is removed where the value is still the one Keymaster wrote. */
export const DELETE = fleetCluster(
  {
    namespace: 'tenant-b',
    name: 'b-delete',
    account: SHARED,
    region: 'eu-west-1',
    additionalTags: { team: 'b-delete', 'retire-me': 'soon' },
    removalPolicy: 'Delete',
  },
  3,
);
export const CLUSTERS = [RETAIN, PAUSED_CLUSTER, DELETED, OWNER, RIVAL, DELETE];
/** The clusters 0.2.0 tags: all but the refused rival. */
export const TAGGED = CLUSTERS.filter((c) => c !== RIVAL);

const resourcesOf = (clusters: FleetCluster[]) =>
  clusters.flatMap((c) => clusterResources(c.account, c.region, c.clusterName ?? c.name, c.arns.length, FOREIGN));

export const WORLD: World = {
  accounts: [
    { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
    {
      id: TENANT_A,
      users: [{ name: 'tenant-a-automation', accessKeys: [A_KEY], allow: TAGGER }],
      resources: resourcesOf([RETAIN, PAUSED_CLUSTER, DELETED]),
    },
    {
      id: SHARED,
      roles: [
        tenantRole('tenant-b-admin', HUB_ROLE, 'upgrade-tenant-b-external-id'),
        tenantRole('tenant-c-admin', HUB_ROLE, 'upgrade-tenant-c-external-id'),
      ],
      resources: resourcesOf([OWNER, DELETE]),
    },
  ],
};

/** Tenant A's keys, in the controller's namespace: Keymaster reads them and writes nothing there. */
export const KEYS_SECRET = keysSecret('tenant-a-keys', A_KEY);

/** The identities: tenant A's keys, and tenants B and C each through the hub with an externalID. */
const IDENTITIES: KubeObject[] = [
  controllerIdentity({ list: ['tenant-b', 'tenant-c'] }),
  KEYS_SECRET,
  staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }, [{ key: 'tenant', value: 'a' }]),
  roleIdentity('keymaster-hub', {
    roleARN: HUB_ROLE,
    allowedNamespaces: { selector: { matchExpressions: [{ key: TENANT_LABEL, operator: 'Exists' }] } },
  }),
  // Labelled with their tenant, as ops label namespaces: nothing to 0.2.0, an account's owner to this release.
  ...(['b', 'c'] as const).map((tenant) => {
    const identity = roleIdentity(`tenant-${tenant}`, {
      roleARN: roleArn(SHARED, `tenant-${tenant}-admin`),
      externalID: `upgrade-tenant-${tenant}-external-id`,
      sourceIdentityRef: roleRef('keymaster-hub'),
      allowedNamespaces: { list: [`tenant-${tenant}`] },
      resourceTags: [{ key: 'tenant', value: tenant, overridePolicy: 'Deny' }],
    });
    return { ...identity, metadata: { ...identity.metadata, labels: { [TENANT_LABEL]: `tenant-${tenant}` } } };
  }),
];

function clusterObject(c: FleetCluster, annotations: Record<string, string> = {}): AWSCluster {
  const object = awsCluster(c.namespace, c.name, {
    region: c.region,
    identityRef: c.namespace === 'tenant-a' ? staticRef('tenant-a') : roleRef(c.namespace),
    additionalTags: c.additionalTags,
    ...(c.clusterName ? { clusterName: c.clusterName } : {}),
    ...(c.removalPolicy ? { tagging: { removalPolicy: c.removalPolicy } } : {}),
  });
  return { ...object, metadata: { ...object.metadata, annotations } };
}

export const readyReason = (cluster: AWSCluster | undefined): string | undefined =>
  condition(cluster ?? {}, 'Ready')?.reason;

/** Pauses or unpauses a cluster as ops do, with the annotation. */
export async function setPaused(fleet: Fleet, c: FleetCluster, paused: boolean): Promise<void> {
  await fleet.kube.patch(clusterKey(c.namespace, c.name), {
    metadata: { annotations: { [PAUSED]: paused ? 'true' : null } },
  });
}

/** Every resource's tags, by ARN. */
export const tagsOf = (fleet: Fleet, clusters: FleetCluster[] = CLUSTERS): Record<string, Record<string, string>> =>
  Object.fromEntries(clusters.flatMap((c) => c.arns).map((arn) => [arn, fleet.aws.tags(arn)]));

/**
 * The world created as ops do and converged by `tree`'s controller (0.2.0's): the rival, created first
 * (the older), stays paused until B's cluster has claimed the name, then is refused by the claim; the
 * paused cluster is paused once tagged.
 */
export async function convergeWorld(fleet: Fleet, tree: KeymasterTree, args: string[]): Promise<void> {
  const { kube } = fleet;
  await kube.create(
    ...['a', 'b', 'c'].map((tenant) => namespace(`tenant-${tenant}`, { [TENANT_LABEL]: `tenant-${tenant}` })),
    tagPolicy(POLICY),
    ...IDENTITIES,
  );
  const [rival] = (await kube.create(clusterObject(RIVAL, { [PAUSED]: 'true' }))) as AWSCluster[];
  // creationTimestamp has seconds: the rival is strictly the older, so that only the claim makes B the owner.
  const rivalBorn = new Date(rival!.metadata.creationTimestamp!).getTime();
  await eventually(() => expect(Date.now()).to.be.greaterThan(rivalBorn + 1000));
  await kube.create(...TAGGED.map((c) => clusterObject(c)));
  await fleet.run(tree, args);
  await eventually(async () => {
    for (const c of TAGGED)
      expect(condition(await kube.cluster(c.namespace, c.name), 'Ready')?.status, c.name).to.equal('True');
  });
  await setPaused(fleet, PAUSED_CLUSTER, true);
  await setPaused(fleet, RIVAL, false);
  await eventually(async () =>
    expect(readyReason(await kube.cluster(RIVAL.namespace, RIVAL.name))).to.equal('ClusterNameClaimed'),
  );
}
