import { expect } from 'chai';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import {
  RateLimiters,
  reconcileTags,
  SessionBatchers,
  TAGGERS,
  type TaggingClock,
  type TaggingSession,
} from '../../src/index.js';
import { systemClock } from '../../src/rate-limit/clock.js';
import { ec2ResourceId } from '../../src/apply/taggers/ec2-tagger.js';
import { memoryOf, owned } from '../fixtures.js';
import { ACCOUNT, clusterInstances, instance, REGIONS, taggingWorld } from '../support/aws-world.js';
import {
  EFFECTIVE_VALUES,
  effectiveTags,
  emulatorClock,
  startHarness,
  staticSession,
  type Harness,
} from '../support/harness.js';
import { virtualClock } from '../support/virtual-clock.js';

const [EAST] = REGIONS;
/** Each cluster's EC2 resources, as in the benchmark's fleet. */
const PER_CLUSTER = 20;
const CLUSTERS = 60;
const names = (count: number) => Array.from({ length: count }, (_, i) => `cluster-${String(i).padStart(2, '0')}`);
const fleet = (clusters: readonly string[]): ResourceSpec[] =>
  clusters.flatMap((clusterName, i) => clusterInstances(EAST, PER_CLUSTER, { clusterName, from: i * PER_CLUSTER }));
const effective = (costCenter: string) =>
  effectiveTags([{ key: 'cost-center', value: costCenter }], { team: 'analytics' });

/**
 * Every cluster reconciled at once with Keymaster's taggers, each owning its name; `ownTag`: each
 * cluster also carries a tag of its own (its name), so that no two write the same; `clock`: the
 * clusters' clock (default: a virtual one, whose sleeps return at once).
 */
const pass = (
  clusters: readonly string[],
  costCenter: string,
  shared: Shared,
  { ownTag = false, clock }: { ownTag?: boolean; clock?: TaggingClock } = {},
) =>
  Promise.all(
    clusters.map((clusterName) =>
      reconcileTags({
        session: { ...shared.session },
        clusterName,
        regions: [EAST],
        effective: ownTag
          ? effectiveTags([{ key: 'cost-center', value: costCenter }], { cluster: clusterName })
          : effective(costCenter),
        claim: { decide: () => Promise.resolve({ owner: true as const }) },
        limiters: shared.limiters,
        batchers: shared.batchers,
        taggers: TAGGERS,
        clock: clock ?? virtualClock(),
        retry: { baseDelayMs: 0 },
      }),
    ),
  );

interface Shared {
  session: TaggingSession;
  limiters: RateLimiters;
  batchers: SessionBatchers;
}

describe("reconcileTags with EC2's own tagger", function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('a global edit over 60 clusters of one account and region takes ⌈60 × 20 / 1,000⌉ CreateTags and ⌈1,200 / 200⌉ DescribeTags', async () => {
    const clusters = names(CLUSTERS);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const session = { ...staticSession(h.aws.url, h.faults), key: 'chain-a' };
    const plenty = {
      session,
      limiters: new RateLimiters({ clock: emulatorClock(h.aws) }),
      batchers: new SessionBatchers(),
    };
    await pass(clusters, '1000', plenty);
    h.aws.calls.reset();

    // EC2's writes wait a second for their token, the first taken already: every cluster's edit joins
    // the calls waiting, as when a whole account syncs together.
    const limiters = new RateLimiters({ budgets: { ec2Writes: { ratePerSecond: 1, burst: 1 } } });
    await limiters.get(ACCOUNT, EAST, 'ec2Writes').acquire();
    const results = await pass(clusters, '2000', { session, limiters, batchers: new SessionBatchers() });

    expect(h.calls('ec2:CreateTags')).to.equal(Math.ceil((CLUSTERS * PER_CLUSTER) / 1000));
    expect(h.calls('ec2:DescribeTags')).to.equal(Math.ceil((CLUSTERS * PER_CLUSTER) / 200));
    expect(h.calls('tag:TagResources') + h.calls('ec2:DeleteTags')).to.equal(0);
    for (const [arn, tags] of h.resources()) expect(tags, arn).to.include({ 'cost-center': '2000' });
    for (const result of results) {
      expect(result.synced).to.equal(true);
      expect(result.applied).to.have.length(PER_CLUSTER);
    }
    const sent = results.reduce((sum, { requests }) => sum + (requests['ec2:CreateTags'] ?? 0), 0);
    expect(sent).to.equal(h.calls('ec2:CreateTags'));
  });

  it('a first tagging of 60 clusters with tags of their own takes a CreateTags each, read back together: ⌈1,200 / 200⌉ DescribeTags', async () => {
    const clusters = names(CLUSTERS);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const session = { ...staticSession(h.aws.url, h.faults), key: 'chain-a' };
    // EC2's writes one after the other, 10 ms apart, in real time: each is answered at its own time;
    // reads without a wait for their token, which would join them too.
    const limiters = new RateLimiters({
      budgets: { ec2Writes: { ratePerSecond: 100, burst: 1 }, ec2Reads: { ratePerSecond: 1000, burst: 1000 } },
    });
    // Holds wait in real time too (a virtual clock's sleeps would end them at once), and so long that
    // only the writes' answers end them, however slow the machine.
    const batchers = new SessionBatchers({ maxHoldMs: 60_000 });
    const results = await pass(clusters, '1000', { session, limiters, batchers }, { ownTag: true, clock: systemClock });

    // Each read-back waited for the writes of its scope on their way, whose clusters then joined it.
    expect(h.calls('ec2:CreateTags')).to.equal(CLUSTERS);
    expect(h.calls('ec2:DescribeTags')).to.equal(Math.ceil((CLUSTERS * PER_CLUSTER) / 200));
    results.forEach((result, i) => {
      expect(result.synced).to.equal(true);
      expect(result.status).to.include({ resourcesDiscovered: PER_CLUSTER, resourcesInSync: PER_CLUSTER });
      expect(h.resources().get(result.applied[0]!.arn)).to.include({ cluster: clusters[i] });
    });
  });

  it('reads back the keys it wrote alone: an edit of one key reads a tag per resource', async () => {
    const resources = clusterInstances(EAST, 10, { tags: EFFECTIVE_VALUES });
    h = await startHarness(taggingWorld(resources), { taggers: TAGGERS });
    const result = await h.reconcile({ regions: [EAST], effective: effective('2000') });

    expect(result.synced).to.equal(true);
    expect(result.applied).to.have.length(10);
    const returned = h.recent('ec2:DescribeTags').map(({ detail }) => detail?.['returned']);
    // One tag a resource, the one written, where reading every tag took 43.
    expect(returned).to.deep.equal([10]);
    for (const { arn } of resources) expect(h.resources().get(arn)).to.include({ 'cost-center': '2000' });
  });

  it('reports the resource EC2 names as not found gone, and writes the rest of the call', async () => {
    h = await startHarness(taggingWorld(clusterInstances(EAST, 30)), { taggers: TAGGERS });
    const ghost = instance(EAST, 0xdead);
    h.faults.ghosts({ [ghost]: owned() });
    const result = await h.reconcile({ regions: [EAST] });

    expect(result.gone).to.deep.equal([
      {
        arn: ghost,
        region: EAST,
        code: 'InvalidInstanceID.NotFound',
        message: "The instance ID 'i-0000000000000dead' does not exist",
      },
    ]);
    expect(result.failed).to.deep.equal([]);
    expect(result.synced).to.equal(true);
    expect(result.applied).to.have.length(30);
    // The call EC2 refused whole, then the same call without the ghost.
    expect(h.calls('ec2:CreateTags')).to.equal(2);
    expect(h.succeeded('ec2:CreateTags')).to.equal(1);
  });

  it('splits a call EC2 refuses whole without naming a resource, so that the refusal stays with its resource', async () => {
    const resources = clusterInstances(EAST, 8);
    h = await startHarness(taggingWorld(resources), { taggers: TAGGERS });
    const crowded = instance(EAST, 5);
    const result = await h.reconcile({
      regions: [EAST],
      // After discovery someone fills one instance up to EC2's 50 tags: EC2 refuses the whole call.
      claim: {
        decide: () => {
          const tags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`other-${i}`, 'x']));
          h.aws.world.putResources({ arn: crowded, tags: { ...resources[5]!.tags, ...tags } });
          return Promise.resolve({ owner: true as const });
        },
      },
    });

    expect(result.applied.map(({ arn }) => arn)).to.deep.equal(
      resources.map(({ arn }) => arn).filter((arn) => arn !== crowded),
    );
    expect(result.failed.map(({ arn, action, kind, code }) => ({ arn, action, kind, code }))).to.deep.equal([
      { arn: crowded, action: 'ec2:CreateTags', kind: 'Rejected', code: 'TagLimitExceeded' },
    ]);
    // Halves down to the crowded one (8 -> 4 + 4 -> 2 + 2 -> 1 + 1): 7 calls, 3 of them written, none retried.
    expect(h.calls('ec2:CreateTags')).to.equal(7);
    expect(h.succeeded('ec2:CreateTags')).to.equal(3);
  });

  it('Delete: names the applied value in DeleteTags, so a value changed since discovery stays', async () => {
    const managed = { ...EFFECTIVE_VALUES, legacy: 'x' };
    const resources = clusterInstances(EAST, 10, { tags: managed });
    h = await startHarness(taggingWorld(resources), { taggers: TAGGERS });
    const changed = instance(EAST, 3);
    const result = await h.reconcile({
      regions: [EAST],
      memory: memoryOf(Object.fromEntries(resources.map(({ arn }) => [arn, { Cluster: { legacy: 'x' } }]))),
      managedTags: managed,
      removalPolicy: 'Delete',
      // Someone sets legacy=y on one resource after discovery, before the removal is sent.
      claim: {
        decide: () => {
          const spec = resources.find(({ arn }) => arn === changed)!;
          h.aws.world.putResources({ arn: changed, tags: { ...spec.tags, legacy: 'y' } });
          return Promise.resolve({ owner: true as const });
        },
      },
    });

    expect(h.calls('ec2:DeleteTags')).to.equal(1);
    const legacy = [...h.resources()].flatMap(([arn, tags]) => (tags.legacy === undefined ? [] : [[arn, tags.legacy]]));
    expect(legacy).to.deep.equal([[changed, 'y']]);
    expect(result.failed.map(({ arn, action, kind }) => ({ arn, action, kind }))).to.deep.equal([
      { arn: changed, action: 'ec2:DeleteTags', kind: 'NotVerified' },
    ]);
    expect(result.applied).to.have.length(9);
  });
});

describe('ec2ResourceId', () => {
  const cases: [arn: string, id: string][] = [
    ['arn:aws:ec2:eu-west-1:111122223333:instance/i-0abc', 'i-0abc'],
    ['arn:aws:ec2:eu-west-1:111122223333:network-interface/eni-1', 'eni-1'],
    ['arn:aws:ec2:eu-west-1:111122223333:a/b/c', 'c'],
    ['arn:aws:ec2:eu-west-1:111122223333:instance:i-1', 'instance:i-1'],
    ['arn:aws:ec2:eu-west-1:111122223333:vpc/', ''],
    ['arn:a/b:ec2:eu-west-1:111122223333:vpc-1', 'vpc-1'],
    ['arn:aws:ec2:eu-west-1:111122223333', ''],
    ['', ''],
  ];
  for (const [arn, id] of cases)
    it(`${JSON.stringify(arn)} -> ${JSON.stringify(id)}`, () => expect(ec2ResourceId(arn)).to.equal(id));
});
