import { expect } from 'chai';
import { MAX_ARNS_PER_CALL } from '../../src/index.js';
import { CLUSTER } from '../fixtures.js';
import { clusterInstances, instance, neighbours, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const [EAST, WEST, SYDNEY] = REGIONS;
/** 1,000 resources: 400 + 350 + 250, of which 50 in Sydney already carry another team. */
const COUNTS = { [EAST]: 400, [WEST]: 350, [SYDNEY]: 200 };
const OTHER_TEAM = 50;
const calls = (n: number) => Math.ceil(n / MAX_ARNS_PER_CALL);

function world() {
  return taggingWorld([
    ...REGIONS.flatMap((region) => [...clusterInstances(region, COUNTS[region]), ...neighbours(region)]),
    ...clusterInstances(SYDNEY, OTHER_TEAM, { tags: { team: 'other' }, from: COUNTS[SYDNEY] }),
  ]);
}

/** Whether a resource carries an ownership tag saying the fixture cluster owns it. */
const isOurs = (tags: Record<string, string>) =>
  Object.entries(tags).some(([key, value]) => key.endsWith(`/cluster/${CLUSTER}`) && value === 'owned');

describe('reconcileTags: 1,000 resources in 3 regions against the aws-emulator', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness(world());
  });
  after(() => h.stop());

  it('tags every resource with the fewest TagResources calls batching allows, and verifies them', async () => {
    const result = await h.reconcile();

    // One group per region of resources needing the same three tags, and the 50 with another team.
    const minimum = calls(COUNTS[EAST]) + calls(COUNTS[WEST]) + calls(COUNTS[SYDNEY]) + calls(OTHER_TEAM);
    expect(h.calls('tag:TagResources')).to.equal(minimum);
    expect(result.requests['tag:TagResources']).to.equal(minimum);
    expect(h.calls('tag:UntagResources')).to.equal(0);
    for (const { detail } of h.recent('tag:TagResources')) {
      expect((detail as { resourceArns: string[] }).resourceArns.length).to.be.at.most(MAX_ARNS_PER_CALL);
    }

    const ours = [...h.resources()].filter(([, tags]) => isOurs(tags));
    expect(ours).to.have.length(1000);
    for (const [, tags] of ours) expect(tags).to.include(EFFECTIVE_VALUES);
    expect(h.resources().get(instance(EAST, 0xf00))).to.not.have.property('team');

    expect(result.synced).to.equal(true);
    expect(result.failed).to.deep.equal([]);
    expect(result.applied).to.have.length(1000);
    expect(result.status).to.deep.include({
      resourcesDiscovered: 1000,
      resourcesInSync: 1000,
      resourcesDrifted: 0,
      resourcesFailed: 0,
      managedTags: EFFECTIVE_VALUES,
    });
    expect(result.events.map(({ type, reason }) => `${type} ${reason}`)).to.deep.equal(['Normal TagsApplied']);
    expect(result.events[0]!.message).to.equal(
      `Updated the tags of 1000 resources in ${[...REGIONS].sort().join(', ')}: set cost-center, red-hat-managed, team`,
    );
  });

  it('pages through discovery, both ownership keys and elbv2.k8s.aws/cluster apart, and reads back 100 ARNs a call', () => {
    // Per region, each ownership key matches two thirds of the resources, 100 a page; elbv2.k8s.aws/cluster none (one empty page).
    expect(h.calls('tag:GetResources')).to.equal(
      REGIONS.reduce((sum, region) => {
        const resources = COUNTS[region] + (region === SYDNEY ? OTHER_TEAM : 0);
        const perKey = Math.ceil((resources * 2) / 3 / 100);
        return sum + 2 * perKey + 1 + Math.ceil(resources / 100);
      }, 0),
    );
    const pages = h.recent('tag:GetResources').map(({ detail }) => (detail as { returned: number }).returned);
    expect(Math.max(...pages)).to.equal(100);
  });

  it('makes no write calls on a second pass with nothing changed, and raises no event', async () => {
    const before = { tag: h.calls('tag:TagResources'), untag: h.calls('tag:UntagResources') };
    const result = await h.reconcile({ managedTags: EFFECTIVE_VALUES });
    expect({ tag: h.calls('tag:TagResources'), untag: h.calls('tag:UntagResources') }).to.deep.equal(before);
    expect(result.requests).to.have.keys(['tag:GetResources']);
    expect(result.events).to.deep.equal([]);
    expect(result.synced).to.equal(true);
    expect(result.status).to.include({ resourcesInSync: 1000, resourcesDrifted: 0, resourcesFailed: 0 });
  });

  it('sets back tags edited outside Keymaster, and says so in an event', async () => {
    const edited = [instance(EAST, 3), instance(EAST, 4), instance(WEST, 5)];
    const resources = h.resources();
    h.aws.world.putResources(
      edited.map((arn) => {
        const { team: _team, ...rest } = resources.get(arn)!;
        return { arn, tags: { ...rest, 'red-hat-managed': 'false' } };
      }),
    );
    const before = h.calls('tag:TagResources');
    const result = await h.reconcile({ managedTags: EFFECTIVE_VALUES });

    // The same change on all three: one call per region.
    expect(h.calls('tag:TagResources') - before).to.equal(2);
    for (const arn of edited) expect(h.resources().get(arn)).to.include(EFFECTIVE_VALUES);
    expect(result.plan.resources.find(({ arn }) => arn === edited[0])).to.deep.include({
      add: [{ key: 'team', value: 'analytics' }],
      update: [{ key: 'red-hat-managed', from: 'false', to: 'true', reason: 'Drift' }],
    });
    expect(result.status, 'corrected drift is drift no more').to.include({
      resourcesInSync: 1000,
      resourcesDrifted: 0,
      resourcesFailed: 0,
    });
    const drift = result.events.find(({ reason }) => reason === 'TagDriftCorrected');
    // In ARN order, as the plan lists resources.
    expect(drift?.message).to.equal(
      `Set back 3 tags edited outside Keymaster on 3 resources: red-hat-managed on ${edited[2]} ("false" -> "true"), ` +
        `red-hat-managed on ${edited[0]} ("false" -> "true"), red-hat-managed on ${edited[1]} ("false" -> "true")`,
    );
  });
});
