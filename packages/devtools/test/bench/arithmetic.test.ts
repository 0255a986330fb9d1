import { expect } from 'chai';
import {
  batchedTagWrites,
  budgetSeconds,
  busiest,
  discoveryPages,
  leastTime,
  percent,
  scopeOf,
  sessionsNeeded,
  slowest,
  sumByScope,
  total,
} from '../../scripts/bench/arithmetic.js';

const arn = (account: string, region: string, id: number) =>
  `arn:aws:ec2:${region}:${account}:instance/i-${String(id).padStart(17, '0')}`;
const owned = (cluster: string) => ({ [`sigs.k8s.io/cluster-api-provider-aws/cluster/${cluster}`]: 'owned' });

/** `count` resources of one account and region, each owned by cluster `c<index / perCluster>`. */
const resources = (account: string, region: string, count: number, perCluster = 20) =>
  Array.from({ length: count }, (_, index) => ({
    arn: arn(account, region, index),
    tags: owned(`c${Math.floor(index / perCluster)}`),
  }));

describe('bench arithmetic', () => {
  it('scopes an ARN by account and region', () => {
    expect(scopeOf(arn('200000000001', 'eu-west-1', 3))).to.equal('200000000001/eu-west-1');
  });

  it('discovery: one listing per account and region, 100 resources a page', () => {
    const pages = discoveryPages([...resources('1', 'us-east-1', 250), ...resources('2', 'us-east-1', 100)]);
    expect(Object.fromEntries(pages)).to.deep.equal({ '1/us-east-1': 3, '2/us-east-1': 1 });
  });

  it("tag writes: the same change on several clusters of one account and region shares calls, 1,000 of EC2's resources each, 20 of others", () => {
    const before = [
      ...resources('1', 'us-east-1', 1050, 5),
      ...resources('1', 'eu-west-1', 10),
      ...Array.from({ length: 50 }, (_, index) => ({
        arn: `arn:aws:elasticloadbalancing:eu-west-1:1:loadbalancer/net/lb-${index}/0`,
        tags: owned(`c${index % 10}`),
      })),
    ];
    const after = before.map(({ arn: resource, tags }) => ({ arn: resource, tags: { ...tags, team: 'a' } }));
    const { resources: changed, writes } = batchedTagWrites(before, after);
    expect(changed).to.equal(1110);
    // 1,050 instances of 210 clusters: 2 CreateTags, not 210; 50 load balancers: 3 TagResources.
    expect(Object.fromEntries(writes)).to.deep.equal({ '1/us-east-1': 2, '1/eu-west-1': 4 });
  });

  it('tag writes: different changes and removals are separate calls; unchanged resources cost nothing', () => {
    const before = resources('1', 'us-east-1', 4, 1).map(({ arn: resource, tags }) => ({
      arn: resource,
      tags: { ...tags, old: 'x' },
    }));
    const after = [
      { ...before[0]!, tags: { ...before[0]!.tags, team: 'a' } }, // set team=a
      { ...before[1]!, tags: { ...before[1]!.tags, team: 'b' } }, // set team=b
      { ...before[2]!, tags: owned('c2') }, // remove old
      before[3]!, // unchanged
    ];
    const { resources: changed, writes } = batchedTagWrites(before, after);
    expect(changed).to.equal(3);
    expect(total(writes)).to.equal(3);
  });

  it('budget time: the burst goes at once, the rest at the rate; the busiest scope bounds the run', () => {
    const budget = { ratePerSecond: 5, burst: 10 };
    expect(budgetSeconds(8, budget)).to.equal(0);
    expect(budgetSeconds(223, budget)).to.equal(42.6);
    const calls = sumByScope(
      new Map([
        ['1/us-east-1', 38],
        ['2/us-east-1', 30],
      ]),
      new Map([['1/us-east-1', 185]]),
    );
    expect(busiest(calls, budget)).to.deep.equal({ scope: '1/us-east-1', calls: 223, seconds: 42.6 });
    expect(busiest(calls, { ratePerSecond: Infinity, burst: 0 }).seconds).to.equal(0);
  });

  it("least time: each API family's writes at its own budget, the slowest family and scope bound the run", () => {
    // 3,700 EC2 resources and 60 load balancers of one account and region: 4 CreateTags, 3 TagResources.
    const before = [
      ...resources('1', 'us-east-1', 3700),
      ...Array.from({ length: 60 }, (_, index) => ({
        arn: `arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/lb-${index}/0`,
        tags: owned(`c${index}`),
      })),
    ];
    const after = before.map(({ arn: resource, tags }) => ({ arn: resource, tags: { ...tags, team: 'a' } }));
    const { byFamily } = batchedTagWrites(before, after);
    expect(
      Object.fromEntries([...byFamily].map(([family, calls]) => [family, Object.fromEntries(calls)])),
    ).to.deep.equal({ ec2Writes: { '1/us-east-1': 4 }, taggingWrites: { '1/us-east-1': 3 } });
    const budgets = {
      taggingReads: { ratePerSecond: 15, burst: 12 },
      taggingWrites: { ratePerSecond: 5, burst: 1 },
      ec2Writes: { ratePerSecond: 10, burst: 2 },
      ec2Reads: { ratePerSecond: 20, burst: 80 },
    };
    // TagResources: (3 - 1) / 5 = 0.4 s; CreateTags: (4 - 2) / 10 = 0.2 s.
    expect(slowest(byFamily, budgets)).to.deep.equal({
      family: 'taggingWrites',
      scope: '1/us-east-1',
      calls: 3,
      seconds: 0.4,
    });
    expect(slowest(byFamily, { ...budgets, ec2Writes: { ratePerSecond: 1, burst: 2 } })).to.include({
      family: 'ec2Writes',
      seconds: 2,
    });
    expect(slowest(byFamily, undefined).seconds).to.equal(0);
  });

  it("least time: the larger of AWS's budget time and the API server's time for the writes, at the floor's rate", () => {
    const floor = { writes: 4000, seconds: 8 };
    expect(leastTime(1.5, 4000, floor)).to.deep.equal({ seconds: 8, bound: 'API server' });
    expect(leastTime(12.34, 2000, floor)).to.deep.equal({ seconds: 12.3, bound: 'AWS' });
    expect(leastTime(undefined, 1000, floor)).to.deep.equal({ seconds: 2, bound: 'API server' });
    expect(leastTime(0, 0, { writes: 0, seconds: 0 })).to.deep.equal({ seconds: 0, bound: 'AWS' });
  });

  it('percentages and sessions needed', () => {
    expect(percent(1494, 3493)).to.equal(42.8);
    expect(percent(1, 0)).to.equal(0);
    expect(sessionsNeeded(86_400, 3600)).to.deep.equal({ least: 24, most: 25 });
  });
});
