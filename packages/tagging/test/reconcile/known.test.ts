import { expect } from 'chai';
import { TAGGERS } from '../../src/index.js';
import { memoryOf } from '../fixtures.js';
import { clusterInstances, instance, neighbours, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, effectiveTags, startHarness, type Harness } from '../support/harness.js';

const [EAST, WEST] = REGIONS;
const PER_REGION = 40;
const TEAM = { key: 'red-hat-managed', value: 'true', overridePolicy: 'Deny' as const };
/** The fixture's tags with cost-center edited: a value-only edit of the global policy. */
const EDITED = effectiveTags([TEAM, { key: 'cost-center', value: '2000' }], { team: 'analytics' });
const ours = REGIONS.flatMap((region) => clusterInstances(region, PER_REGION));

const world = () => taggingWorld([...ours, ...REGIONS.flatMap(neighbours)]);

describe('reconcileTags planning from the known set against the aws-emulator', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('an edit planned from the known set makes zero GetResources calls and reaches every resource', async () => {
    // Keymaster's taggers: EC2 reads its tags back with DescribeTags, so every GetResources is discovery.
    h = await startHarness(world(), { taggers: TAGGERS });
    const first = await h.reconcile();
    expect(first.discovered).to.equal(true);
    expect(first.known?.resources).to.have.all.keys(ours.map(({ arn }) => arn));
    const discoveries = h.calls('tag:GetResources');
    expect(discoveries).to.be.greaterThan(0);

    const edit = await h.reconcile({ effective: EDITED, known: first.known!, memory: first.memory });

    expect(edit.discovered).to.equal(false);
    expect(h.calls('tag:GetResources')).to.equal(discoveries);
    expect(edit.synced).to.equal(true);
    expect(edit.applied).to.have.length(ours.length);
    for (const { arn } of ours)
      expect(h.resources().get(arn)).to.include({ ...EFFECTIVE_VALUES, 'cost-center': '2000' });
    // What it left is the next edit's known set: the written values, the same resources.
    expect(edit.known?.resources[instance(WEST, 3)]).to.include({ 'cost-center': '2000' });
    expect(Object.keys(edit.known!.resources)).to.have.length(ours.length);
  });

  it('discovers anyway when the plan from the known set would remove a tag', async () => {
    h = await startHarness(world(), { taggers: TAGGERS });
    const first = await h.reconcile({
      effective: effectiveTags([TEAM, { key: 'cost-center', value: '1000' }, { key: 'legacy', value: 'x' }], {
        team: 'analytics',
      }),
    });
    const discoveries = h.calls('tag:GetResources');
    const dropped = await h.reconcile({
      known: first.known!,
      memory: first.memory,
      managedTags: { ...EFFECTIVE_VALUES, legacy: 'x' },
      removalPolicy: 'Delete',
    });
    expect(dropped.discovered).to.equal(true);
    expect(h.calls('tag:GetResources')).to.be.greaterThan(discoveries);
    expect([...h.resources().values()].filter((tags) => tags.legacy !== undefined)).to.have.length(0);
  });

  it('leaves nothing known after a write that was not verified, or a dry run', async () => {
    h = await startHarness(world());
    h.faults.drop([instance(EAST, 1)]);
    const unverified = await h.reconcile();
    expect(unverified.synced).to.equal(false);
    expect(unverified.known).to.equal(undefined);
    const dryRun = await h.reconcile({ dryRun: true });
    expect(dryRun.known).to.equal(undefined);
  });

  it('never plans from a known set when converting legacy bookkeeping', async () => {
    h = await startHarness(world(), { taggers: TAGGERS });
    const first = await h.reconcile();
    const converting = await h.reconcile({ known: first.known!, convertLegacy: true, memory: memoryOf({}) });
    expect(converting.discovered).to.equal(true);
    expect(converting.known).to.equal(undefined);
  });
});
