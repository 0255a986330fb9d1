import { expect } from 'chai';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import { retryPolicy } from '../../src/aws/retry.js';
import type { CallContext } from '../../src/batch/call-context.js';
import { discoverResources, type DiscoveredResources } from '../../src/discovery.js';
import { SessionBatchers, TAGGERS } from '../../src/index.js';
import { owned } from '../fixtures.js';
import { ACCOUNT, clusterInstances, instance, REGIONS, taggingWorld } from '../support/aws-world.js';
import { startHarness, staticSession, type Harness } from '../support/harness.js';

const [EAST] = REGIONS;
/** What a cluster's discovery costs alone: one GetResources per ownership key, one for elbv2.k8s.aws/cluster. */
const QUERIES_ALONE = 3;
const names = (count: number) => Array.from({ length: count }, (_, i) => `cluster-${i}`);
/** 5 instances of each cluster; the first also has one `shared` instance, and one owned by nobody here. */
const fleet = (clusters: readonly string[]): ResourceSpec[] => [
  ...clusters.flatMap((clusterName, i) => clusterInstances(EAST, 5, { clusterName, from: i * 5 })),
  { arn: instance(EAST, 0xe00), tags: owned('shared', clusters[0]) },
  { arn: instance(EAST, 0xe01), tags: { team: 'not a cluster’s' } },
];
/** `count` tagged resources of the account that belong to no cluster (a busy account). */
const unrelated = (count: number): ResourceSpec[] =>
  Array.from({ length: count }, (_, i) => ({
    arn: `arn:aws:ec2:${EAST}:${ACCOUNT}:volume/vol-${i.toString(16).padStart(17, '0')}`,
    tags: { owner: 'someone else' },
  }));

describe('SharedDiscovery: one scan for the clusters that wait together, where it is cheaper', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  const contextOf = (batchers: SessionBatchers): CallContext => ({
    session: { ...staticSession(h.aws.url, h.faults), key: 'chain-a' },
    limiters: h.limiters,
    batchers,
    taggers: TAGGERS,
    clock: h.clock,
    retry: retryPolicy(),
    requests: {},
  });
  /** Every cluster's discovery at once (they wait for the token together), with `batchers`. */
  const discoverAll = (
    clusters: readonly string[],
    batchers: SessionBatchers,
    includeShared: (clusterName: string) => boolean = () => false,
    queue: { askedAt?: number; expected?: () => number } = {},
  ) =>
    Promise.all(
      clusters.map((clusterName) =>
        discoverResources(contextOf(batchers), {
          clusterName,
          regions: [EAST],
          includeShared: includeShared(clusterName),
          ...queue,
        }),
      ),
    );
  /** What each cluster's own queries find (a registry of its own: nothing shared). */
  const discoverAlone = async (
    clusters: readonly string[],
    includeShared: (clusterName: string) => boolean = () => false,
  ) => {
    const found: DiscoveredResources[] = [];
    for (const clusterName of clusters)
      found.push(
        await discoverResources(contextOf(new SessionBatchers()), {
          clusterName,
          regions: [EAST],
          includeShared: includeShared(clusterName),
        }),
      );
    return found;
  };
  const sorted = ({ resources, regions }: DiscoveredResources) => ({
    resources: Object.fromEntries(Object.entries(resources).sort(([a], [b]) => (a < b ? -1 : 1))),
    regions: Object.fromEntries(Object.entries(regions).sort(([a], [b]) => (a < b ? -1 : 1))),
  });

  it('finds for each of 10 clusters in one scan exactly what its own queries find', async () => {
    const clusters = names(10);
    h = await startHarness(taggingWorld(fleet(clusters)));
    const withShared = (clusterName: string) => clusterName === clusters[0];
    const alone = await discoverAlone(clusters, withShared);
    expect(h.calls('tag:GetResources')).to.equal(QUERIES_ALONE * clusters.length);
    h.aws.calls.reset();

    const shared = await discoverAll(clusters, new SessionBatchers(), withShared);

    expect(h.calls('tag:GetResources')).to.equal(1);
    expect(h.recent('tag:GetResources')[0]!.account).to.equal(ACCOUNT);
    expect(shared.map(sorted)).to.deep.equal(alone.map(sorted));
    expect(Object.keys(shared[0]!.resources)).to.include(instance(EAST, 0xe00));
    expect(Object.keys(shared[1]!.resources)).to.have.length(5);
  });

  it('finds what the AWS Load Balancer Controller tagged with the EKS name, alone and in a scan; nothing of a name differing in case', async () => {
    // CAPA's default EKS names, one differing from the other only in case: two clusters of two tenants.
    const clusters = ['tenant-a_prod-EKS', 'tenant-a_prod-eks'];
    const loadBalancer = (index: number) =>
      `arn:aws:elasticloadbalancing:${EAST}:${ACCOUNT}:loadbalancer/net/k8s-${index}/${index.toString(16).padStart(16, '0')}`;
    const resources: ResourceSpec[] = [
      ...fleet(clusters),
      ...clusters.map((name, i) => ({
        arn: loadBalancer(i),
        tags: { 'elbv2.k8s.aws/cluster': name, 'elbv2.k8s.aws/resource': 'LoadBalancer' },
      })),
      { arn: loadBalancer(9), tags: { 'elbv2.k8s.aws/cluster': `${clusters[0]}-2` } },
    ];
    h = await startHarness(taggingWorld(resources));
    const alone = await discoverAlone(clusters);
    h.aws.calls.reset();
    const scanned = await discoverAll(clusters, new SessionBatchers());
    expect(h.calls('tag:GetResources'), 'one scan').to.equal(1);
    expect(scanned.map(sorted)).to.deep.equal(alone.map(sorted));
    clusters.forEach((name, i) => {
      const own = [...Array.from({ length: 5 }, (_, k) => instance(EAST, i * 5 + k)), loadBalancer(i)];
      expect(Object.keys(alone[i]!.resources), name).to.have.members(own);
    });
  });

  it('keeps a tag named __proto__ as a tag (a valid AWS key), found alone or in a scan', async () => {
    const clusters = names(2);
    const arn = instance(EAST, 0xe02);
    const tags = { ...owned('owned', clusters[0]), ...(JSON.parse('{"__proto__": "x"}') as Record<string, string>) };
    h = await startHarness(taggingWorld([...fleet(clusters), { arn, tags }]));
    const [alone] = await discoverAlone(clusters.slice(0, 1));
    const [scanned] = await discoverAll(clusters, new SessionBatchers());
    for (const found of [alone!, scanned!]) {
      expect(Object.hasOwn(found.resources[arn]!, '__proto__')).to.equal(true);
      expect(Object.entries(found.resources[arn]!)).to.deep.include(['__proto__', 'x']);
      expect(Object.getPrototypeOf(found.resources[arn])).to.equal(Object.prototype);
    }
  });

  it('queries alone, as without sharing, when one cluster waits', async () => {
    h = await startHarness(taggingWorld(fleet(names(2))));
    await discoverAll(names(1), new SessionBatchers());
    expect(h.calls('tag:GetResources')).to.equal(QUERIES_ALONE);
  });

  it('stops a scan that would cost more than the clusters’ own queries, and does not scan that region again for as few', async () => {
    const clusters = names(3);
    // 1,000 other resources: a scan takes 11 pages, three clusters' own queries 9 calls.
    h = await startHarness(taggingWorld([...fleet(clusters), ...unrelated(1_000)]));
    const batchers = new SessionBatchers();
    const alone = await discoverAlone(clusters);
    h.aws.calls.reset();

    const first = await discoverAll(clusters, batchers);
    // 8 pages of the scan (the most that stays below 9), then each cluster's own 3 queries.
    expect(h.calls('tag:GetResources')).to.equal(8 + 9);
    expect(first.map(sorted)).to.deep.equal(alone.map(sorted));

    h.aws.calls.reset();
    await discoverAll(clusters, batchers);
    expect(h.calls('tag:GetResources')).to.equal(9);

    // The stopped scan read 8 pages: the region is taken to hold 16, so 5 clusters (15 queries) do not scan either.
    h.aws.calls.reset();
    await discoverAll(names(5), batchers);
    expect(h.calls('tag:GetResources')).to.equal(15);

    // Enough clusters wait together for the 11 pages to be cheaper than 3 x 8 queries: scanned again.
    h.aws.calls.reset();
    const many = await discoverAll([...clusters, ...names(8).slice(3)], batchers);
    expect(h.calls('tag:GetResources')).to.equal(11);
    expect(many.slice(0, 3).map(sorted)).to.deep.equal(alone.map(sorted));
  });

  describe('a scan kept for the clusters queued behind it', () => {
    it('answers, with no call, clusters asked for before it began, each as its own queries would', async () => {
      const clusters = names(10);
      h = await startHarness(taggingWorld(fleet(clusters)));
      const alone = await discoverAlone(clusters);
      h.aws.calls.reset();
      const batchers = new SessionBatchers();
      const queue = { askedAt: h.clock.now(), expected: () => clusters.length };

      // The scheduler starts two of the ten queued clusters: one scan, as ten clusters want it.
      const first = await discoverAll(clusters.slice(0, 2), batchers, undefined, queue);
      expect(h.calls('tag:GetResources')).to.equal(1);
      const rest = await discoverAll(clusters.slice(2), batchers, undefined, queue);

      expect(h.calls('tag:GetResources')).to.equal(1);
      expect([...first, ...rest].map(sorted)).to.deep.equal(alone.map(sorted));
    });

    it('does not answer a cluster asked for after it began: that one sees a resource created since', async () => {
      const clusters = names(4);
      h = await startHarness(taggingWorld(fleet(clusters)));
      const batchers = new SessionBatchers();
      await discoverAll(clusters.slice(0, 2), batchers, undefined, { askedAt: h.clock.now(), expected: () => 4 });
      await h.clock.sleep(1_000);
      const created = instance(EAST, 0xf00);
      h.aws.world.putResources([{ arn: created, tags: owned('owned', clusters[2]) }]);
      h.aws.calls.reset();

      const [later] = await discoverAll([clusters[2]!], batchers, undefined, { askedAt: h.clock.now() });

      expect(h.calls('tag:GetResources')).to.equal(QUERIES_ALONE);
      expect(Object.keys(later!.resources)).to.include(created);
    });

    it('hands a cluster name’s resources out once: a second ask queries again', async () => {
      const clusters = names(4);
      h = await startHarness(taggingWorld(fleet(clusters)));
      const batchers = new SessionBatchers();
      const queue = { askedAt: h.clock.now(), expected: () => 4 };
      const [once] = await discoverAll([clusters[0]!, clusters[1]!], batchers, undefined, queue);
      h.aws.calls.reset();

      const [again] = await discoverAll([clusters[0]!], batchers, undefined, { askedAt: queue.askedAt });

      expect(h.calls('tag:GetResources')).to.equal(QUERIES_ALONE);
      expect(sorted(again!)).to.deep.equal(sorted(once!));
    });

    it('stops a scan that would keep more than the memory allowed: the clusters query alone, as exact', async () => {
      const clusters = names(10);
      h = await startHarness(taggingWorld([...fleet(clusters), ...unrelated(300)]));
      const alone = await discoverAlone(clusters);
      h.aws.calls.reset();
      // Less room than the clusters' resources on the first page take: the scan stops after it.
      const batchers = new SessionBatchers({ maxScanBytes: 1_000 });
      const queue = { askedAt: h.clock.now(), expected: () => clusters.length };

      const found = await discoverAll(clusters, batchers, undefined, queue);

      expect(h.calls('tag:GetResources')).to.equal(1 + QUERIES_ALONE * clusters.length);
      expect(found.map(sorted)).to.deep.equal(alone.map(sorted));
      expect(batchers.discovery.heldBytes).to.equal(0);
    });

    it('lets go of what it kept as clusters take theirs', async () => {
      const clusters = names(4);
      h = await startHarness(taggingWorld(fleet(clusters)));
      const batchers = new SessionBatchers();
      const queue = { askedAt: h.clock.now(), expected: () => clusters.length };
      await discoverAll(clusters.slice(0, 2), batchers, undefined, queue);
      const kept = batchers.discovery.heldBytes;
      expect(kept).to.be.greaterThan(0);
      await discoverAll(clusters.slice(2, 3), batchers, undefined, queue);
      expect(batchers.discovery.heldBytes).to.be.within(1, kept - 1);
      await discoverAll(clusters.slice(3), batchers, undefined, queue);
      // Only resources of no cluster queried here are left (cluster-0's shared one counts for cluster-0 only).
      expect(batchers.discovery.heldBytes).to.equal(0);
    });

    it('scans for one cluster that starts alone when more are queued behind it', async () => {
      h = await startHarness(taggingWorld(fleet(names(10))));
      await discoverAll(names(1), new SessionBatchers(), undefined, { expected: () => 10 });
      expect(h.calls('tag:GetResources')).to.equal(1);
    });
  });
});
