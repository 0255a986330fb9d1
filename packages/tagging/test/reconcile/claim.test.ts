import { expect } from 'chai';
import { CLAIM_KEY, claimOf, ClusterNameClaimedError, type ClaimCheck } from '../../src/index.js';
import { clusterInstances, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const OURS = claimOf('tenant-b', 'analytics-dev');
const THEIRS = claimOf('tenant-a', 'analytics-dev');

/** A claim check that records what it was shown and owns the name unless `theirs` is among the claims found. */
function check(seen: Set<string>[]): ClaimCheck {
  return {
    claim: OURS,
    decide: (found) => {
      seen.push(new Set(found));
      return found.has(THEIRS)
        ? { owner: false, message: 'another AWSCluster owns clusterName "analytics-dev" in this account' }
        : { owner: true };
    },
  };
}

describe('reconcileTags and the claim of a cluster name', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('the owner writes its claim with the tags, in the same calls, and reads it back', async () => {
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 30))));
    const seen: Set<string>[] = [];
    const result = await h.reconcile({ claim: check(seen) });

    expect(seen).to.deep.equal([new Set()]);
    expect(result.synced).to.equal(true);
    expect(h.calls('tag:TagResources')).to.equal(3 * 2);
    for (const tags of h.resources().values()) expect(tags).to.include({ ...EFFECTIVE_VALUES, [CLAIM_KEY]: OURS });
    // Events and applied changes name the layers' keys only.
    expect(Object.keys(result.applied[0]!.set).sort()).to.deep.equal(Object.keys(EFFECTIVE_VALUES).sort());

    const again = await h.reconcile({ claim: check(seen) });
    expect(seen[1]).to.deep.equal(new Set([OURS]));
    expect(again.applied).to.deep.equal([]);
    expect(h.calls('tag:TagResources')).to.equal(6);
  });

  it('a cluster that does not own the name makes no write at all, whatever the plan would change', async () => {
    const claimed = { [CLAIM_KEY]: THEIRS, team: 'theirs', 'legal-hold': 'yes' };
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 10, { tags: claimed }))));
    const before = h.resources();
    let error: unknown;
    try {
      await h.reconcile({ claim: check([]), removalPolicy: 'Delete' });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ClusterNameClaimedError);
    expect((error as ClusterNameClaimedError).code).to.equal('ERR_KEYMASTER_TAGGING_CLUSTER_NAME_CLAIMED');
    expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
    expect(h.resources()).to.deep.equal(before);
  });
});
