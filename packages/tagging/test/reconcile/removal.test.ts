import { expect } from 'chai';
import { ACCOUNT, clusterInstances, instance, REGIONS, taggingWorld } from '../support/aws-world.js';
import { memoryOf } from '../fixtures.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const [EAST, WEST, SYDNEY] = REGIONS;
const PER_REGION = 60;
/** Keymaster applied `legacy=x` before; no layer sets it any more. */
const MANAGED = { ...EFFECTIVE_VALUES, legacy: 'x' };
const EDITED = instance(WEST, 4);

/** What the ledger remembers of the earlier reconcile: it wrote `legacy` on every resource. */
const MEMORY = memoryOf(
  Object.fromEntries(
    REGIONS.flatMap((region) => clusterInstances(region, PER_REGION)).map(({ arn }) => [
      arn,
      { Cluster: { legacy: 'x' } },
    ]),
  ),
);

/** Resources tagged by an earlier reconcile; someone has since set `legacy` to `y` on one of them. */
function world(access?: Parameters<typeof taggingWorld>[1]) {
  const resources = REGIONS.flatMap((region) => clusterInstances(region, PER_REGION, { tags: MANAGED }));
  const edited = resources.find(({ arn }) => arn === EDITED)!;
  return taggingWorld(
    resources.map((resource) =>
      resource === edited ? { ...edited, tags: { ...edited.tags, legacy: 'y' } } : resource,
    ),
    access,
  );
}

const legacyValues = (h: Harness) => [...h.resources().values()].map((tags) => tags.legacy);

describe('reconcileTags and removal policies', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('Retain: writes nothing for a dropped key, leaves it on the resources and stops managing it', async () => {
    h = await startHarness(world());
    const result = await h.reconcile({ memory: MEMORY, managedTags: MANAGED });
    expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
    expect(legacyValues(h).filter((value) => value !== undefined)).to.have.length(180);
    expect(result.status.managedTags).to.deep.equal(EFFECTIVE_VALUES);
    expect(result.synced).to.equal(true);
  });

  it('Delete: removes the key where the value is still the one applied, with the fewest UntagResources calls', async () => {
    h = await startHarness(world());
    const result = await h.reconcile({ memory: MEMORY, managedTags: MANAGED, removalPolicy: 'Delete' });

    expect(h.calls('tag:UntagResources')).to.equal(3 * Math.ceil(PER_REGION / 20));
    expect(h.calls('tag:TagResources')).to.equal(0);
    expect(legacyValues(h).filter((value) => value !== undefined)).to.deep.equal(['y']);
    expect(result.plan.resources.find(({ arn }) => arn === EDITED)!.conflicts).to.deep.equal([
      { key: 'legacy', live: 'y', applied: 'x' },
    ]);
    expect(result.applied).to.have.length(179);
    expect(result.applied[0]).to.deep.equal({ arn: instance(SYDNEY, 0), region: SYDNEY, set: {}, removed: ['legacy'] });
    expect(result.status).to.deep.include({ resourcesInSync: 180, resourcesFailed: 0, managedTags: EFFECTIVE_VALUES });
    expect(result.events.map(({ message }) => message)).to.deep.equal([
      `Updated the tags of 179 resources in ${[...REGIONS].sort().join(', ')}: removed legacy`,
    ]);
    // The ledger forgets what was removed; the edited resource's memory (of "x") stays, harmless.
    expect(result.memory.toLedger()).to.deep.equal(memoryOf({ [EDITED]: { Cluster: { legacy: 'x' } } }).toLedger());
  });

  it('Delete: reports a removal AWS said it made but reading back does not show', async () => {
    h = await startHarness(world());
    const kept = instance(EAST, 9);
    h.faults.drop([kept]);
    const result = await h.reconcile({ memory: MEMORY, managedTags: MANAGED, removalPolicy: 'Delete' });

    expect(result.failed).to.deep.equal([
      {
        arn: kept,
        region: EAST,
        action: 'tag:UntagResources',
        kind: 'NotVerified',
        code: 'NotVerified',
        message: 'UntagResources succeeded but GetResources shows legacy is still there',
        keys: ['legacy'],
      },
    ]);
    expect(result.status.managedTags).to.deep.equal(MANAGED);
    // Not seen removed, so still remembered: the next reconcile removes it.
    expect(result.memory.of(kept).writer('legacy', 'x')).to.equal('Cluster');
    expect(result.memory.size).to.equal(2);
  });

  it('Delete: keeps managing a key whose removal failed, so that the next reconcile removes it', async () => {
    const notSydney = {
      arn: `arn:aws:iam::${ACCOUNT}:policy/UntagOutsideSydney`,
      document: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'ec2:DeleteTags', Resource: [`arn:aws:ec2:${EAST}:*`, `arn:aws:ec2:${WEST}:*`] },
        ],
      },
    };
    h = await startHarness(world({ allow: ['tag:*', 'ec2:CreateTags'], policies: [notSydney] }));
    const result = await h.reconcile({ memory: MEMORY, managedTags: MANAGED, removalPolicy: 'Delete' });

    expect(result.failed).to.have.length(PER_REGION);
    expect(new Set(result.failed.map(({ region, action, kind }) => `${region} ${action} ${kind}`))).to.deep.equal(
      new Set([`${SYDNEY} tag:UntagResources AccessDenied`]),
    );
    expect(result.failed[0]!.keys).to.deep.equal(['legacy']);
    expect(result.status).to.deep.include({ resourcesInSync: 120, resourcesFailed: 60, managedTags: MANAGED });
    expect(result.synced).to.equal(false);
  });
});
