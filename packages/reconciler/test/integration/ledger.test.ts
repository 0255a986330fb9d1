import { API_VERSION } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import { fingerprint, LEGACY_CLAIM_KEY, LEGACY_MEMORY_KEYS, legacyClaimOf, resourceDigest } from '@keymaster/tagging';
import { expect } from 'chai';
import { CONTROLLER_KEYS, TEAM_A, condition, eventually, startPlatform, type Platform } from './harness.js';

const ACCOUNT = '111111111111';
const OWNED = { 'sigs.k8s.io/cluster-api-provider-aws/cluster/prod': 'owned' };
const instance = (id: string) => `arn:aws:ec2:us-west-2:${ACCOUNT}:instance/i-000000000000000${id}`;
const INSTANCES = [instance('a'), instance('b')];

/** The legacy memory tag of a resource on which 0.2.0 wrote `tags` from the Cluster layer. */
const legacyMemory = (tags: Record<string, string>) => ({
  [LEGACY_MEMORY_KEYS.Cluster]: Object.entries(tags)
    .map(([key, value]) => fingerprint(key, value).slice(0, 4))
    .sort()
    .join(''),
});

/** The controller's account, with the cluster's two instances carrying `tags`. */
function worldWith(tags: Record<string, string>): World {
  return {
    accounts: [
      {
        id: ACCOUNT,
        users: [
          {
            name: 'keymaster-controller',
            accessKeys: [CONTROLLER_KEYS],
            allow: ['tag:*', 'ec2:CreateTags', 'ec2:DeleteTags', 'ec2:DescribeTags', 'sts:GetCallerIdentity'],
          },
        ],
        resources: INSTANCES.map((arn) => ({ arn, tags: { ...OWNED, ...tags } })),
      },
    ],
  };
}

const cluster = (additionalTags: Record<string, string>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod', namespace: 'team-a' },
  spec: { region: 'us-west-2', additionalTags, tagging: { removalPolicy: 'Delete' } },
});

describe('the AWSClusterLedger (the controller, in-process, against both emulators)', function () {
  this.timeout(60_000);
  let platform: Platform;
  afterEach(() => platform.stop());

  const tags = (arn: string) => platform.aws.world.listResources().find((resource) => resource.arn === arn)!.tags;
  const ledgerWrites = () => platform.controller.keymaster.context.writer.counts.ledgers;
  const editTags = (additionalTags: Record<string, string | null>) =>
    platform.patchCluster('team-a', 'prod', { additionalTags });
  /** The cluster once the controller has seen its current generation and found it in sync. */
  const synced = () =>
    eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(found.status?.observedGeneration).to.equal(found.metadata.generation);
      expect(condition(found, 'Ready')).to.include({ status: 'True' });
      return found;
    });
  const events = async (reason: string) =>
    (await platform.core.listNamespacedEvent({ namespace: 'team-a' })).items.filter((event) => event.reason === reason);

  it('records the claim before the first AWS write and what AWS accepted after: a write per change, none at resync', async () => {
    platform = await startPlatform([...TEAM_A, cluster({ team: 'a' })], [], { world: worldWith({}) });
    const found = await synced();
    const ledger = await platform.ledger('team-a', 'prod');
    expect(ledger.metadata.ownerReferences).to.deep.equal([
      { apiVersion: API_VERSION, kind: 'AWSCluster', name: 'prod', uid: found.metadata.uid, controller: true },
    ]);
    expect(
      ledger.spec.claims?.map(({ accountID, region, clusterName }) => [accountID, region, clusterName]),
    ).to.deep.equal([[ACCOUNT, 'us-west-2', 'prod']]);
    expect(ledger.spec.memory).to.deep.equal([
      { resources: INSTANCES.map(resourceDigest).sort(), cluster: [fingerprint('team', 'a')] },
    ]);
    // No tag of Keymaster's own on AWS.
    for (const arn of INSTANCES) expect(tags(arn)).to.deep.equal({ ...OWNED, team: 'a' });
    expect(ledgerWrites(), 'created with the claim, then the memory').to.equal(2);

    // Resyncs every 2 s find nothing new: no ledger write.
    const discovered = platform.aws.calls.summary().byAction['tag:GetResources'] ?? 0;
    await eventually(() =>
      expect(platform.aws.calls.summary().byAction['tag:GetResources']).to.be.at.least(discovered + 4),
    );
    expect(ledgerWrites()).to.equal(2);

    // Dropped under Delete: removed (the ledger says Keymaster wrote it), and forgotten in one write.
    await editTags({ team: null, env: 'prod' });
    await eventually(() => {
      for (const arn of INSTANCES) expect(tags(arn)).to.deep.equal({ ...OWNED, env: 'prod' });
    });
    await eventually(async () =>
      expect((await platform.ledger('team-a', 'prod')).spec.memory?.[0]?.cluster).to.deep.equal([
        fingerprint('env', 'prod'),
      ]),
    );
    expect(ledgerWrites()).to.equal(3);
  });

  describe('upgraded from 0.2.0: bookkeeping tags on the resources', () => {
    /** What 0.2.0 left: its claim for team-a/prod, and its memory of writing team=a and old=x. */
    const LEGACY = {
      team: 'a',
      old: 'x',
      [LEGACY_CLAIM_KEY]: legacyClaimOf('team-a', 'prod'),
      ...legacyMemory({ team: 'a', old: 'x' }),
    };

    it('converts them once for a cluster older than the ledger CRD: memory copied, tags removed in the removal call, ledger marked', async () => {
      platform = await startPlatform([...TEAM_A, cluster({ team: 'a' })], [], {
        world: worldWith(LEGACY),
        ledgerCrdLater: true,
      });
      // old was Keymaster's (the legacy memory says so) and no layer sets it: removed with the legacy tags.
      await eventually(() => {
        for (const arn of INSTANCES) expect(tags(arn)).to.deep.equal({ ...OWNED, team: 'a' });
      });
      // The instances' removals go through EC2's DeleteTags.
      expect(platform.aws.calls.summary().byAction['ec2:DeleteTags'], 'one call for both').to.equal(1);
      await synced();
      const ledger = await platform.ledger('team-a', 'prod');
      expect(ledger.spec.legacyTagsConverted).to.be.a('string');
      expect(ledger.spec.memory).to.deep.equal([
        { resources: INSTANCES.map(resourceDigest).sort(), cluster: [fingerprint('team', 'a')] },
      ]);

      // Written again by anyone, they are someone else's: reported once, never read, never removed.
      const forged = { 'legal-hold': 'yes', ...legacyMemory({ 'legal-hold': 'yes' }) };
      platform.aws.world.putResources([{ arn: INSTANCES[0]!, tags: { ...tags(INSTANCES[0]!), ...forged } }]);
      await eventually(async () => expect(await events('BookkeepingTagIgnored')).to.have.length(1));
      const [event] = await events('BookkeepingTagIgnored');
      expect(event!.type).to.equal('Warning');
      expect(event!.message).to.include(LEGACY_MEMORY_KEYS.Cluster);
      const untags = platform.aws.calls.summary().byAction['tag:UntagResources'];
      const discovered = platform.aws.calls.summary().byAction['tag:GetResources'] ?? 0;
      await eventually(() =>
        expect(platform.aws.calls.summary().byAction['tag:GetResources']).to.be.at.least(discovered + 4),
      );
      expect(tags(INSTANCES[0]!)).to.include(forged);
      expect(platform.aws.calls.summary().byAction['tag:UntagResources']).to.equal(untags);
      expect((await events('BookkeepingTagIgnored'))[0]!.count ?? 1, 'reported once').to.equal(1);
      expect(await platform.controller.metrics.bookkeepingIgnored.get()).to.deep.include({
        values: [{ value: 1, labels: {} }],
      });
    });

    it('trusts none for a cluster created after the ledger CRD: nobody but a tenant could have written them', async () => {
      platform = await startPlatform([...TEAM_A, cluster({ team: 'a' })], [], { world: worldWith(LEGACY) });
      await synced();
      const ledger = await platform.ledger('team-a', 'prod');
      expect(ledger.spec.legacyTagsConverted).to.be.a('string');
      expect(ledger.spec.memory, 'team=a was there: Keymaster wrote nothing').to.equal(undefined);
      // old stays (nothing says Keymaster wrote it), and so do the keymaster.dev/ tags, reported.
      for (const arn of INSTANCES) expect(tags(arn)).to.deep.equal({ ...OWNED, ...LEGACY });
      await eventually(async () => expect(await events('BookkeepingTagIgnored')).to.have.length(1));
      expect(platform.aws.calls.summary().byAction['tag:UntagResources'] ?? 0).to.equal(0);
    });
  });
});
