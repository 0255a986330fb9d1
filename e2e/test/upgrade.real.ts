import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  API_VERSION,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSClusterRoleIdentity,
} from '@keymaster/api';
import { loadAllYaml, type V1Secret } from '@kubernetes/client-node';
import { requireRelease, type ReleaseTree } from '@keymaster/testenv';
import { expectApiWarning, type ExpectedApiWarning } from './support/api-warnings.js';
import { THIS_TREE } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { Fleet } from './support/fleet.js';
import { helmChart, kustomize, type Installer, type Ops } from './support/installer.js';
import { clusterKey, condition } from './support/kube.js';
import {
  CLUSTERS,
  DELETE,
  DELETED,
  FOREIGN,
  KEYS_SECRET,
  LEGACY_KEYS,
  OWNER,
  PAUSED_CLUSTER,
  RETAIN,
  RIVAL,
  SHARED,
  TAGGED,
  WORLD,
  convergeWorld,
  readyReason,
  setPaused,
  tagsOf,
  type FleetCluster,
} from './support/upgrade-world.js';

/** The release this tree's upgrade notes start from (releases.json); the next release brings its own test. */
const FROM = '0.2.0';
/** Both controllers resync often, so that "never again" is seen over several syncs. */
const SYNC = ['--sync-period=3s'];
/** Tag writes besides removals: the upgrade makes none (nothing in the fleet changed). */
const WRITES = ['tag:TagResources', 'ec2:CreateTags'];
/** Removals of tags: the Tagging API's, and EC2's own for EC2 resources. */
const REMOVALS = ['tag:UntagResources', 'ec2:DeleteTags'];

/** The upgrade under test: the fleet, and what it was when the previous release had converged it. */
interface Upgrade {
  fleet: Fleet;
  previous: ReleaseTree;
  /** Every resource's tags when 0.2.0 had converged. */
  converged: Record<string, Record<string, string>>;
  /** The static identity's Secret then. */
  keys: V1Secret;
}

const without = (tags: Record<string, string>, keys: string[]) =>
  Object.fromEntries(Object.entries(tags).filter(([key]) => !keys.includes(key)));

const clusterOf = (fleet: Fleet, c: FleetCluster): Promise<AWSCluster> => fleet.kube.cluster(c.namespace, c.name);

/** The tag-changing calls since the last reset, each with its keys. */
const tagCalls = (fleet: Fleet, actions: string[]) =>
  fleet.aws.calls(({ action, outcome }) => actions.includes(action) && outcome === 'success');

/**
 * Waits until the controller has synced every cluster `times` more: that many resyncs of the
 * AWSCluster controller, and as many discovery scans in each account.
 */
async function syncs(fleet: Fleet, times: number): Promise<void> {
  const controller = fleet.controller!;
  const reconciles = () => controller.metric('controller_runtime_reconcile_total', { controller: 'awscluster' });
  const scans = (account: string) =>
    fleet.aws.calls(({ action, account: at }) => action === 'tag:GetResources' && at === account).length;
  const start = { reconciles: await reconciles(), a: scans(RETAIN.account), shared: scans(OWNER.account) };
  await eventually(async () => {
    expect(await reconciles(), 'AWSCluster reconciles').to.be.at.least(start.reconciles + times * CLUSTERS.length);
    expect(scans(RETAIN.account), `scans of ${RETAIN.account}`).to.be.at.least(start.a + times);
    expect(scans(OWNER.account), `scans of ${OWNER.account}`).to.be.at.least(start.shared + times);
  });
}

/**
 * What the notes say to do before the new controller starts where identities carry the tenancy label:
 * write each account's binding from what the clusters resolved, read it (ops share the account of
 * tenants B and C on purpose), and apply it.
 */
async function bindAccounts(fleet: Fleet): Promise<void> {
  await fleet.ops.documented('account-bindings');
  const file = join(fleet.ops.dir, 'account-bindings.yaml');
  const bindings = (loadAllYaml(await readFile(file, 'utf8')) as AWSAccountBinding[]).filter(Boolean);
  expect(Object.fromEntries(bindings.map(({ metadata, spec }) => [metadata.name, spec.tenants]))).to.deep.equal({
    [SHARED]: ['tenant-b', 'tenant-c'],
  });
  await fleet.ops.kubectl('apply', '-f', file);
}

// What the upgrade must keep or convert, one check each, run in CHECKS' order once the new controller
// has synced the fleet: each fails when what it checks is lost or its conversion removed. A conversion
// is one more function here, given the Upgrade (the fleet; the tags and Secret as 0.2.0 left them; the
// call log since the upgrade began), and its row in CHECKS.

/**
 * No tag lost or rewritten: every key but 0.2.0's bookkeeping as 0.2.0 left it, foreign and Deny keys
 * too, on every resource (the deleted cluster's too: what becomes of bookkeeping is its conversion's check).
 */
function tagsKept({ fleet, converged }: Upgrade): void {
  for (const [arn, tags] of Object.entries(tagsOf(fleet, TAGGED)))
    expect(without(tags, LEGACY_KEYS), arn).to.deep.equal(without(converged[arn]!, LEGACY_KEYS));
}

/** The name keeps its owner: B's cluster, whose claim 0.2.0 wrote, though C's is the older. */
async function nameKeepsItsOwner({ fleet }: Upgrade): Promise<void> {
  expect(readyReason(await clusterOf(fleet, OWNER))).not.to.equal('ClusterNameClaimed');
  expect(readyReason(await clusterOf(fleet, RIVAL))).to.equal('ClusterNameClaimed');
  for (const arn of OWNER.arns) expect(fleet.aws.tags(arn), arn).to.include({ tenant: 'b', team: 'b-owner' });
}

/**
 * 0.2.0's bookkeeping moved into ledgers: each cluster synced since has its AWSClusterLedger, marked
 * converted, the owner's with its claim of the name; no 0.2.0 bookkeeping key is left on their resources.
 */
async function ledgersConverted({ fleet }: Upgrade): Promise<void> {
  // A cluster converts at its first sync that gets as far as tagging: one refused until ops' binding
  // reached the controller's cache converts a sync later, so each is waited for.
  for (const c of TAGGED.filter((c) => c !== PAUSED_CLUSTER && c !== DELETED))
    await eventually(async () => {
      const { spec } = await fleet.kube.read<AWSClusterLedger>({
        apiVersion: API_VERSION,
        kind: 'AWSClusterLedger',
        metadata: { namespace: c.namespace, name: c.name },
      });
      expect(spec.legacyTagsConverted, `${c.name}'s ledger converted`).to.be.a('string');
      if (c === OWNER)
        expect(
          spec.claims?.map(({ accountID, region, clusterName }) => ({ accountID, region, clusterName })),
        ).to.deep.include({
          accountID: c.account,
          region: c.region,
          clusterName: c.clusterName,
        });
      for (const arn of c.arns) expect(fleet.aws.tags(arn), arn).not.to.have.any.keys(...LEGACY_KEYS);
    });
}

/**
 * Finalizers under their new names: each synced cluster and each identity in use holds
 * `infrastructure.keymaster.dev/<name>` alone; the paused cluster keeps 0.2.0's until it resumes.
 */
async function finalizersRenamed({ fleet }: Upgrade): Promise<void> {
  for (const c of TAGGED.filter((c) => c !== DELETED)) {
    const { finalizers } = (await clusterOf(fleet, c)).metadata;
    expect(finalizers, c.name).to.deep.equal([
      c === PAUSED_CLUSTER ? 'awscluster.infrastructure.keymaster.dev' : 'infrastructure.keymaster.dev/awscluster',
    ]);
  }
  for (const name of ['tenant-b', 'tenant-c', 'keymaster-hub']) {
    const { metadata } = await fleet.kube.identity<AWSClusterRoleIdentity>('AWSClusterRoleIdentity', name);
    expect(metadata.finalizers, name).to.deep.equal(['infrastructure.keymaster.dev/identity-in-use']);
  }
}

/** The paused cluster's resources are as 0.2.0 left them, bookkeeping included: nothing converts until it resumes. */
function pausedUntouched({ fleet, converged }: Upgrade): void {
  for (const [arn, tags] of Object.entries(tagsOf(fleet, [PAUSED_CLUSTER])))
    expect(tags, arn).to.deep.equal(converged[arn]);
}

/** No AWS write beyond the conversion's own: no tag written, and what is removed is 0.2.0's bookkeeping only. */
function noOtherWrite({ fleet }: Upgrade): void {
  expect(tagCalls(fleet, WRITES), 'tag writes').to.deep.equal([]);
  for (const call of tagCalls(fleet, REMOVALS))
    expect(LEGACY_KEYS, `keys removed by ${call.requestId}`).to.include.members(call.detail!['tagKeys'] as string[]);
}

/**
 * The shared account is claimed (the earliest claim of the labelled identities owns it), and the
 * owner shares it with the other tenant as ops annotated: no cluster is refused for the account.
 */
async function accountsBound({ fleet }: Upgrade): Promise<void> {
  const binding = await fleet.kube.read<AWSAccountBinding>({
    apiVersion: API_VERSION,
    kind: 'AWSAccountBinding',
    metadata: { name: SHARED },
  });
  expect(binding.spec.tenants).to.have.members(['tenant-b', 'tenant-c']);
  for (const c of [OWNER, RIVAL])
    expect(readyReason(await clusterOf(fleet, c)), c.name).not.to.be.oneOf([
      'AccountNotBound',
      'AccountOfAnotherTenant',
    ]);
}

/** The plain externalIDs 0.2.0 kept go on working, and each identity says it is readable (the notes' listing). */
async function plainExternalIdsFlagged({ fleet }: Upgrade): Promise<void> {
  const listed = (await fleet.ops.documented('externalid-find')).trim().split('\n').slice(1);
  expect(listed.map((line) => line.split(/\s+/))).to.have.deep.members([
    ['keymaster-hub', 'NoExternalID'],
    ['tenant-b', 'ExternalIDInSpec'],
    ['tenant-c', 'ExternalIDInSpec'],
  ]);
  expect(condition(await clusterOf(fleet, OWNER), 'Ready')?.status).to.equal('True');
}

/** The static identity's Secret is as it was: Keymaster wrote nothing there, nor made itself its owner. */
async function secretUntouched({ fleet, keys }: Upgrade): Promise<void> {
  expect(await fleet.kube.read<V1Secret>(KEYS_SECRET)).to.deep.include({ metadata: keys.metadata, data: keys.data });
}

const CHECKS: [string, (upgrade: Upgrade) => void | Promise<void>][] = [
  ['no tag lost or rewritten: every key but the bookkeeping as 0.2.0 left it, foreign and Deny keys too', tagsKept],
  ["the cluster name keeps its owner, B's cluster by its 0.2.0 claim, though C's is the older", nameKeepsItsOwner],
  ["0.2.0's bookkeeping is in each synced cluster's ledger, and no longer on AWS", ledgersConverted],
  ['finalizers carry their new names, but on the paused cluster', finalizersRenamed],
  ["nothing of the paused cluster's resources is touched, its bookkeeping included", pausedUntouched],
  ["no AWS write beyond the conversion's own: no tag written, only bookkeeping keys removed", noOtherWrite],
  ["the static identity's Secret is left as it was: no write, no owner", secretUntouched],
  ['the plain externalIDs go on working, each identity saying it is readable', plainExternalIdsFlagged],
  ['the shared account is bound to both its tenants, as ops wrote it from the notes', accountsBound],
];

for (const installerOf of [kustomize, helmChart] as ((ops: Ops) => Installer)[]) {
  describe(`upgrade from ${FROM} to this tree, ${installerOf.name === 'kustomize' ? 'kubectl apply -k deploy' : 'helm upgrade'}`, function () {
    const upgrade = {} as Upgrade;
    // RETAIN's reserved key breaks this release's CRD rule: kube-apiserver lets the controller's writes
    // of that object through (validation ratcheting) and warns each time, until ops drop the key.
    let reservedKeyWarning: ExpectedApiWarning;

    before(async function () {
      reservedKeyWarning = expectApiWarning(/^spec\.additionalTags: Invalid value: the tag keys "Name"/);
      upgrade.previous = requireRelease(FROM);
      upgrade.fleet = await Fleet.start(WORLD, installerOf);
      await upgrade.fleet.installer.install(upgrade.previous);
      await convergeWorld(upgrade.fleet, upgrade.previous, SYNC);
      upgrade.converged = tagsOf(upgrade.fleet);
      upgrade.keys = await upgrade.fleet.kube.read<V1Secret>(KEYS_SECRET);
    });
    // Undefined when `before` failed early.
    after(async () => {
      reservedKeyWarning.end();
      await (upgrade as Partial<Upgrade>).fleet?.stop();
    });

    it(`${FROM} tagged every cluster but the rival, its bookkeeping on every resource`, () => {
      for (const c of TAGGED)
        for (const arn of c.arns) {
          expect(upgrade.converged[arn], arn).to.include({ ...FOREIGN, team: c.name, 'cost-center': 'platform' });
          expect(upgrade.converged[arn], arn).to.include.keys(...LEGACY_KEYS);
        }
    });

    it('upgrades: the old controller stopped, the release applied, its controller started; the deleted cluster released', async function () {
      const { fleet } = upgrade;
      fleet.aws.emulator.calls.reset();
      await fleet.stopController();
      await fleet.kube.delete(clusterKey(DELETED.namespace, DELETED.name));
      const held = await clusterOf(fleet, DELETED);
      expect(held.metadata.finalizers, "held by 0.2.0's finalizer").to.deep.equal([
        'awscluster.infrastructure.keymaster.dev',
      ]);
      // What the notes say to find (before or after): objects holding a key the new CRDs refuse.
      expect(await fleet.ops.documented('upgrade-reserved-keys')).to.equal(
        `AWSCluster ${RETAIN.namespace}/${RETAIN.name}\n`,
      );
      await fleet.installer.upgrade(THIS_TREE);
      await bindAccounts(fleet);
      await fleet.run(THIS_TREE, SYNC);
      await eventually(async () =>
        expect((await fleet.kube.clusters()).map(({ metadata }) => metadata.name)).not.to.include(DELETED.name),
      );
      await syncs(fleet, 1);
      // The controller's log tells ops of the object the release refuses, in the server's words.
      await eventually(() => expect(reservedKeyWarning.seen, "RETAIN's reserved key").to.not.be.empty);
    });

    for (const [title, check] of CHECKS) it(title, () => check(upgrade));

    it('converts nothing again and writes nothing at later syncs', async function () {
      const { fleet } = upgrade;
      const removals = tagCalls(fleet, REMOVALS).length;
      await syncs(fleet, 2);
      expect(tagCalls(fleet, REMOVALS), 'bookkeeping removed again').to.have.length(removals);
      expect(tagCalls(fleet, WRITES), 'tag writes').to.deep.equal([]);
    });

    it('goes on as before: Delete removes a key 0.2.0 wrote, Retain keeps one, the paused cluster resumes', async function () {
      const { fleet, converged } = upgrade;
      const drop = (c: FleetCluster, ...keys: string[]) =>
        fleet.kube.patch(clusterKey(c.namespace, c.name), {
          spec: { additionalTags: Object.fromEntries(keys.map((key) => [key, null])) },
        });
      await drop(DELETE, 'retire-me');
      // Holding the reserved key, it takes an edit of another field; one of its tags must drop the key too.
      await fleet.kube.patch(clusterKey(RETAIN.namespace, RETAIN.name), {
        spec: { tagging: { removalPolicy: 'Retain' } },
      });
      await drop(RETAIN, 'keep-me', 'Name');
      await setPaused(fleet, PAUSED_CLUSTER, false);
      await eventually(() => {
        for (const arn of DELETE.arns) expect(fleet.aws.tags(arn), arn).not.to.have.property('retire-me');
      });
      await syncs(fleet, 1);
      for (const arn of RETAIN.arns) expect(fleet.aws.tags(arn), arn).to.include({ 'keep-me': 'yes' });
      for (const arn of PAUSED_CLUSTER.arns)
        expect(without(fleet.aws.tags(arn), LEGACY_KEYS), arn).to.deep.equal(without(converged[arn]!, LEGACY_KEYS));
    });

    it('ops move the externalIDs to Secrets as the notes say: the same sessions, no AssumeRole', async function () {
      const { fleet } = upgrade;
      const assumed = () =>
        fleet.aws.calls(
          ({ action, outcome, detail }) =>
            action === 'sts:AssumeRole' &&
            outcome === 'success' &&
            /:role\/tenant-[bc]-admin$/.test(String(detail?.['roleArn'])),
        ).length;
      const before = assumed();
      await fleet.ops.documented('externalid-migration');
      await eventually(async () => {
        for (const tenant of ['tenant-b', 'tenant-c']) {
          const identity = await fleet.kube.identity<AWSClusterRoleIdentity>('AWSClusterRoleIdentity', tenant);
          expect(condition(identity, 'ExternalIDConfidential')?.reason, tenant).to.equal('ExternalIDInSecret');
        }
      });
      await syncs(fleet, 2);
      expect(assumed(), 'AssumeRole of the tenant roles').to.equal(before);
      expect(condition(await clusterOf(fleet, OWNER), 'Ready')?.status).to.equal('True');
    });

    it(`rolls back to ${FROM} as the notes say: no tag removed, the name with its owner, nothing stuck deleting`, async function () {
      const { fleet, previous, converged } = upgrade;
      expect(await fleet.ops.documented('upgrade-rollback-deleting')).to.equal('0\n');
      await fleet.ops.documented('upgrade-rollback-pause');
      await fleet.stopController();
      await fleet.ops.documented('upgrade-rollback-finalizers');
      await fleet.ops.documented('upgrade-rollback-external-ids');
      await fleet.installer.rollback(previous);
      await fleet.run(previous, SYNC);
      // The owner's resources carry 0.2.0's claim again: then the refused clusters may resume.
      await eventually(() => {
        for (const arn of OWNER.arns) expect(fleet.aws.tags(arn), arn).to.include.keys('keymaster.dev/claim');
      });
      await fleet.ops.documented('upgrade-rollback-unpause');
      await syncs(fleet, 2);
      expect(readyReason(await clusterOf(fleet, RIVAL))).to.equal('ClusterNameClaimed');
      for (const arn of OWNER.arns) expect(fleet.aws.tags(arn), arn).to.include({ tenant: 'b', team: 'b-owner' });
      // Every key 0.2.0 had written or found is still there (but the one the Delete cluster dropped since).
      for (const [arn, tags] of Object.entries(tagsOf(fleet, TAGGED))) {
        const kept = without(converged[arn]!, [...LEGACY_KEYS, ...(DELETE.arns.includes(arn) ? ['retire-me'] : [])]);
        expect(tags, arn).to.include(kept);
      }
      // Deleting works as in 0.2.0: the clusters, then the identity they used, go.
      for (const c of [RETAIN, PAUSED_CLUSTER]) await fleet.kube.delete(clusterKey(c.namespace, c.name));
      await fleet.kube.delete({
        apiVersion: 'infrastructure.keymaster.dev/v1beta1',
        kind: 'AWSClusterStaticIdentity',
        metadata: { name: 'tenant-a' },
      });
      await eventually(async () => {
        expect((await fleet.kube.clusters()).map(({ metadata }) => metadata.name)).to.have.members([
          OWNER.name,
          RIVAL.name,
          DELETE.name,
        ]);
        expect(await fleet.kube.list('infrastructure.keymaster.dev/v1beta1', 'AWSClusterStaticIdentity')).to.deep.equal(
          [],
        );
      });
    });
  });
}
