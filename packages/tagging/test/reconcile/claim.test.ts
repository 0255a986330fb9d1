import { expect } from 'chai';
import {
  ClusterNameClaimedError,
  LEGACY_CLAIM_KEY,
  legacyClaimOf,
  type ClaimCheck,
  type ClaimVerdict,
} from '../../src/index.js';
import { legacyRemembered } from '../fixtures.js';
import { clusterInstances, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const OURS = legacyClaimOf('tenant-b', 'analytics-dev');
const THEIRS = legacyClaimOf('tenant-a', 'analytics-dev');

/** A claim check that records what it was shown and when, and owns the name unless `theirs` is among the legacy claims. */
function check(seen: { claims: Set<string>; writesBefore: number }[], h: () => Harness): ClaimCheck {
  return {
    decide: (found): Promise<ClaimVerdict> => {
      seen.push({ claims: new Set(found), writesBefore: h().calls('tag:TagResources') });
      return Promise.resolve(
        found.has(THEIRS)
          ? { owner: false, message: 'another AWSCluster owns clusterName "analytics-dev" in this account' }
          : { owner: true },
      );
    },
  };
}

describe('reconcileTags and the claim of a cluster name', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('asks the owner before any write, and writes the layers’ keys only: no tag of its own', async () => {
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 30))));
    const seen: { claims: Set<string>; writesBefore: number }[] = [];
    const result = await h.reconcile({ claim: check(seen, () => h) });

    expect(seen).to.deep.equal([{ claims: new Set(), writesBefore: 0 }]);
    expect(result.synced).to.equal(true);
    expect(h.calls('tag:TagResources')).to.equal(3 * 2);
    for (const tags of h.resources().values())
      expect(Object.keys(tags).filter((key) => key.startsWith('keymaster.dev/'))).to.deep.equal([]);
    // What the writes record, for the ledger: every resource, under the layer that won each key.
    expect(result.memory.size).to.equal(90);
    expect(result.legacyConverted).to.equal(false);
  });

  it('a cluster that does not own the name makes no write at all, whatever the plan would change', async () => {
    const claimed = { [LEGACY_CLAIM_KEY]: THEIRS, team: 'theirs', 'legal-hold': 'yes' };
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 10, { tags: claimed }))));
    const before = h.resources();
    let error: unknown;
    try {
      await h.reconcile({ claim: check([], () => h), removalPolicy: 'Delete', convertLegacy: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ClusterNameClaimedError);
    expect((error as ClusterNameClaimedError).code).to.equal('ERR_KEYMASTER_TAGGING_CLUSTER_NAME_CLAIMED');
    expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
    expect(h.resources()).to.deep.equal(before);
  });

  describe('converting the bookkeeping tags of releases up to 0.2.0', () => {
    /** Resources an older release tagged: its claim and its memory of what it wrote beside the tags. */
    const legacy = {
      ...EFFECTIVE_VALUES,
      old: 'x',
      [LEGACY_CLAIM_KEY]: OURS,
      ...legacyRemembered('Cluster', { team: 'analytics', old: 'x' }),
      ...legacyRemembered('Global', { 'cost-center': '1000', 'red-hat-managed': 'true' }),
    };
    const world = () => taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 10, { tags: legacy })));

    it('hands the legacy claims to the owner check, copies the memory, removes the tags with the removals, once', async () => {
      h = await startHarness(world());
      const seen: { claims: Set<string>; writesBefore: number }[] = [];
      const result = await h.reconcile({ claim: check(seen, () => h), removalPolicy: 'Delete', convertLegacy: true });

      expect(seen).to.deep.equal([{ claims: new Set([OURS]), writesBefore: 0 }]);
      expect(result.legacyConverted).to.equal(true);
      // One UntagResources per 20 resources: the legacy tags go with "old", which the legacy memory says Keymaster wrote.
      expect(h.calls('tag:UntagResources')).to.equal(3);
      expect(h.calls('tag:TagResources')).to.equal(0);
      for (const tags of h.resources().values()) {
        expect(tags).to.include(EFFECTIVE_VALUES);
        expect(Object.keys(tags).filter((key) => key.startsWith('keymaster.dev/') || key === 'old')).to.deep.equal([]);
      }
      // The events name the layers' keys only.
      expect(result.events.map(({ message }) => message)).to.deep.equal([
        `Updated the tags of 30 resources in ${[...REGIONS].sort().join(', ')}: removed old`,
      ]);
      const arn = result.plan.resources[0]!.arn;
      expect(result.memory.of(arn).writer('team', 'analytics')).to.equal('Cluster');
      expect(result.memory.of(arn).writer('red-hat-managed', 'true')).to.equal('Global');
      expect(result.memory.of(arn).writer('old', 'x')).to.equal(undefined);

      // Converted: such tags written again by anyone are ignored, never read, never removed, and
      // remove nothing they name (another tool's legal hold, here).
      const forged = {
        'legal-hold': 'yes',
        [LEGACY_CLAIM_KEY]: THEIRS,
        ...legacyRemembered('Cluster', { 'legal-hold': 'yes' }),
      };
      h.aws.world.putResources([{ arn, tags: { ...h.resources().get(arn), ...forged } }]);
      const after = await h.reconcile({
        claim: check(seen, () => h),
        removalPolicy: 'Delete',
        memory: result.memory,
      });
      expect(seen[1]!.claims).to.deep.equal(new Set());
      expect(after.plan.ignoredBookkeepingKeys).to.deep.equal(['keymaster.dev/applied-cluster', LEGACY_CLAIM_KEY]);
      expect(h.calls('tag:UntagResources') + h.calls('tag:TagResources')).to.equal(3);
      expect(h.resources().get(arn)).to.include(forged);
    });

    it('in a dry run, writes nothing to AWS and only seeds the memory', async () => {
      h = await startHarness(world());
      const before = h.resources();
      const result = await h.reconcile({ removalPolicy: 'Delete', convertLegacy: true, dryRun: true });
      expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
      expect(h.resources()).to.deep.equal(before);
      expect(result.legacyConverted).to.equal(false);
      expect(result.memory.of(result.plan.resources[0]!.arn).writer('old', 'x')).to.equal('Cluster');
    });
  });
});
