import { expect } from 'chai';
import type { AWSCluster, ResourceTag } from '@keymaster/api';
import { requireRelease, type ReleaseTree } from '@keymaster/testenv';
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
import { THIS_TREE } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { Fleet } from './support/fleet.js';
import { helmChart, kustomize, type Installer, type Ops } from './support/installer.js';
import { clusterKey, condition } from './support/kube.js';
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
} from './support/objects.js';

/** The release this tree's upgrade notes start from: the newest in releases.json. */
const FROM = '0.2.0';
const TENANT_A = '222222222222';
/** One account for tenants B and C (ops shared it): their clusters of one clusterName contend for it. */
const SHARED = '333333333333';
const A_KEY = accessKey('upgrade/tenant-a');
const B_EXTERNAL_ID = 'upgrade-tenant-b-external-id';
const C_EXTERNAL_ID = 'upgrade-tenant-c-external-id';
const TENANT_LABEL = 'keymaster.dev/tenant';
const PAUSED = 'cluster.x-k8s.io/paused';
/** What 0.2.0 kept on each resource it tagged: whose the cluster name is, and what it wrote per layer. */
const LEGACY_KEYS = [
  'keymaster.dev/claim',
  'keymaster.dev/applied-global',
  'keymaster.dev/applied-account',
  'keymaster.dev/applied-cluster',
];
/** Tags another tool set on every resource: nobody's business but theirs. */
const FOREIGN = { backup: 'daily', 'owner-tool': 'terraform' };
const SYNC = ['--sync-period=3s'];

interface ClusterCase {
  namespace: string;
  name: string;
  account: string;
  region: string;
  clusterName?: string;
  resources: number;
}

const cluster = (c: ClusterCase) => ({
  ...c,
  arns: clusterResources(c.account, c.region, c.clusterName ?? c.name, c.resources, FOREIGN).map(({ arn }) => arn),
});
/** Static keys, Retain, a Deny conflict with the tag policy. */
const RETAIN = cluster({ namespace: 'tenant-a', name: 'a-retain', account: TENANT_A, region: 'us-west-2', resources: 3 });
/** Paused by ops (cluster.x-k8s.io/paused) before the upgrade: nothing of it is touched until unpaused. */
const PAUSED_CLUSTER = cluster({
  namespace: 'tenant-a',
  name: 'a-paused',
  account: TENANT_A,
  region: 'us-west-2',
  resources: 2,
});
/** Deleted while no controller runs: held by 0.2.0's finalizer until the new controller releases it. */
const DELETED = cluster({ namespace: 'tenant-a', name: 'a-gone', account: TENANT_A, region: 'us-west-2', resources: 2 });
/** Through the hub with an externalID; owns clusterName "shared" by its claim tag, though the younger. */
const OWNER = cluster({
  namespace: 'tenant-b',
  name: 'b-owner',
  clusterName: 'shared',
  account: SHARED,
  region: 'eu-west-1',
  resources: 3,
});
/** Tenant C's cluster of the same clusterName, older, paused until B's claimed the name: refused. */
const RIVAL = cluster({
  namespace: 'tenant-c',
  name: 'c-rival',
  clusterName: 'shared',
  account: SHARED,
  region: 'eu-west-1',
  resources: 0,
});
/** removalPolicy Delete: what 0.2.0 wrote is still Keymaster's to remove after the upgrade. */
const DELETE = cluster({ namespace: 'tenant-b', name: 'b-delete', account: SHARED, region: 'eu-west-1', resources: 3 });
const CLUSTERS = [RETAIN, PAUSED_CLUSTER, DELETED, OWNER, RIVAL, DELETE];

const world = {
  accounts: [
    { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
    {
      id: TENANT_A,
      users: [{ name: 'tenant-a-automation', accessKeys: [A_KEY], allow: TAGGER }],
      resources: [RETAIN, PAUSED_CLUSTER, DELETED].flatMap((c) =>
        clusterResources(c.account, c.region, c.name, c.resources, FOREIGN),
      ),
    },
    {
      id: SHARED,
      roles: [
        tenantRole('tenant-b-admin', HUB_ROLE, B_EXTERNAL_ID),
        tenantRole('tenant-c-admin', HUB_ROLE, C_EXTERNAL_ID),
      ],
      resources: [OWNER, DELETE].flatMap((c) =>
        clusterResources(c.account, c.region, c.clusterName ?? c.name, c.resources, FOREIGN),
      ),
    },
  ],
};

const POLICY: ResourceTag[] = [
  { key: 'cost-center', value: 'platform', overridePolicy: 'Deny' },
  { key: 'managed-by', value: 'keymaster' },
];
const ADDITIONAL: Record<string, Record<string, string>> = {
  'a-retain': { team: 'a-retain', 'cost-center': 'tenant-a', 'keep-me': 'yes' },
  'a-paused': { team: 'a-paused' },
  'a-gone': { team: 'a-gone' },
  'b-owner': { team: 'b-owner' },
  'c-rival': { team: 'c-rival' },
  'b-delete': { team: 'b-delete', 'retire-me': 'soon' },
};

const identities = [
  controllerIdentity({ list: ['tenant-b', 'tenant-c'] }),
  keysSecret('tenant-a-keys', A_KEY),
  staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }, [{ key: 'tenant', value: 'a' }]),
  roleIdentity('keymaster-hub', {
    roleARN: HUB_ROLE,
    allowedNamespaces: { selector: { matchExpressions: [{ key: TENANT_LABEL, operator: 'Exists' }] } },
  }),
  ...(['b', 'c'] as const).map((tenant) =>
    roleIdentity(`tenant-${tenant}`, {
      roleARN: roleArn(SHARED, `tenant-${tenant}-admin`),
      externalID: tenant === 'b' ? B_EXTERNAL_ID : C_EXTERNAL_ID,
      sourceIdentityRef: roleRef('keymaster-hub'),
      allowedNamespaces: { list: [`tenant-${tenant}`] },
      resourceTags: [{ key: 'tenant', value: tenant, overridePolicy: 'Deny' }],
    }),
  ),
];

const clusterObject = (c: (typeof CLUSTERS)[number], annotations: Record<string, string> = {}) => {
  const object = awsCluster(c.namespace, c.name, {
    region: c.region,
    identityRef: c.namespace === 'tenant-a' ? staticRef('tenant-a') : roleRef(c.namespace),
    additionalTags: ADDITIONAL[c.name]!,
    ...(c.clusterName ? { clusterName: c.clusterName } : {}),
    ...(c === DELETE ? { tagging: { removalPolicy: 'Delete' as const } } : {}),
  });
  return { ...object, metadata: { ...object.metadata, annotations } };
};

/** Every resource's tags, by ARN. */
const tagsOf = (fleet: Fleet, clusters = CLUSTERS) =>
  Object.fromEntries(clusters.flatMap((c) => c.arns).map((arn) => [arn, fleet.aws.tags(arn)]));

const without = (tags: Record<string, string>, keys: string[]) =>
  Object.fromEntries(Object.entries(tags).filter(([key]) => !keys.includes(key)));

const reason = (c: AWSCluster | undefined, type = 'Ready') => condition(c ?? {}, type)?.reason;

/** The world 0.2.0 converges: the older rival paused while B's cluster claims the name, then refused. */
async function convergeOnPrevious(fleet: Fleet, previous: ReleaseTree): Promise<void> {
  const { kube } = fleet;
  await kube.create(
    ...['a', 'b', 'c'].map((tenant) => namespace(`tenant-${tenant}`, { [TENANT_LABEL]: `tenant-${tenant}` })),
    tagPolicy(POLICY),
    ...identities,
  );
  const [rival] = (await kube.create(clusterObject(RIVAL, { [PAUSED]: 'true' }))) as AWSCluster[];
  // creationTimestamp has seconds: the rival is strictly the older, so that only the claim makes B the owner.
  const rivalBorn = Date.parse(rival!.metadata.creationTimestamp!);
  await eventually(() => expect(Date.now()).to.be.greaterThan(rivalBorn + 1000));
  await kube.create(...CLUSTERS.filter((c) => c !== RIVAL).map((c) => clusterObject(c)));
  await fleet.run(previous, SYNC);
  await eventually(async () => {
    for (const c of CLUSTERS.filter((c) => c !== RIVAL))
      expect(condition(await kube.cluster(c.namespace, c.name), 'Ready')?.status, c.name).to.equal('True');
  });
  await kube.patch(clusterKey(PAUSED_CLUSTER.namespace, PAUSED_CLUSTER.name), {
    metadata: { annotations: { [PAUSED]: 'true' } },
  });
  await kube.patch(clusterKey(RIVAL.namespace, RIVAL.name), { metadata: { annotations: { [PAUSED]: null } } });
  await eventually(async () =>
    expect(reason(await kube.cluster(RIVAL.namespace, RIVAL.name))).to.equal('ClusterNameClaimed'),
  );
}

for (const installerOf of [kustomize, helmChart] as ((ops: Ops) => Installer)[]) {
  describe(`upgrade from ${FROM} to this tree: ${installerOf.name}`, function () {
    let fleet: Fleet;
    let previous: ReleaseTree;
    /** The resources' tags when 0.2.0 had converged. */
    let converged: Record<string, Record<string, string>>;

    before(async function () {
      previous = requireRelease(FROM);
      fleet = await Fleet.start(world, installerOf);
      await fleet.installer.install(previous);
      await convergeOnPrevious(fleet, previous);
      converged = tagsOf(fleet);
    });
    after(async () => fleet?.stop());

    it(`${FROM} tagged every cluster but the rival and the paused one, its bookkeeping on every resource`, () => {
      for (const c of [RETAIN, PAUSED_CLUSTER, DELETED, OWNER, DELETE])
        for (const arn of c.arns) {
          expect(converged[arn], arn).to.include({ ...FOREIGN, team: c.name, 'cost-center': 'platform' });
          expect(converged[arn], arn).to.include.keys(...LEGACY_KEYS);
        }
    });

    it('upgrades: the old controller stopped, the new release applied, its controller started', async function () {
      fleet.aws.emulator.calls.reset();
      await fleet.stopController();
      await fleet.kube.delete(clusterKey(DELETED.namespace, DELETED.name));
      const held = await fleet.kube.cluster(DELETED.namespace, DELETED.name);
      expect(held.metadata.deletionTimestamp, 'being deleted').to.exist;
      expect(held.metadata.finalizers, 'held by 0.2.0 finalizer').to.deep.equal(['awscluster.infrastructure.keymaster.dev']);
      await fleet.installer.upgrade(THIS_TREE);
      await fleet.run(THIS_TREE, SYNC);
      await eventually(async () => {
        const names = (await fleet.kube.clusters()).map(({ metadata }) => metadata.name);
        expect(names).not.to.include(DELETED.name);
      });
      const after = tagsOf(fleet, [RETAIN, PAUSED_CLUSTER, OWNER, DELETE]);
      for (const [arn, tags] of Object.entries(after)) expect(without(tags, LEGACY_KEYS)).to.deep.equal(without(converged[arn]!, LEGACY_KEYS));
    });
  });
}
