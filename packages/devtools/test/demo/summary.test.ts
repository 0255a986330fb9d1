import { expect } from 'chai';
import { clusterRow } from '../../src/demo/clusters.js';
import { awsCallCounts, renderSummary, type DemoSummary } from '../../src/demo/summary.js';
import { awsCluster, readyStatus, refusedStatus } from './fixtures.js';

const rows = [
  clusterRow(awsCluster('tenant-b', 'analytics-dev', readyStatus)),
  clusterRow(awsCluster('tenant-c', 'reporting-prod', refusedStatus)),
];

const summary = (calls: DemoSummary['calls']): DemoSummary => ({
  elapsedMs: 2345,
  rows,
  requests: [],
  calls,
  stsMinimum: { assumeRole: 2, getCallerIdentity: 1 },
  tagChange: { resources: 3, minimumCalls: 1 },
});

describe('demo: summary', () => {
  it("counts STS calls and every kind of tag write from the aws-emulator's call log", () => {
    expect(
      awsCallCounts({
        'sts:AssumeRole': 2,
        'sts:GetCallerIdentity': 1,
        'tag:GetResources': 7,
        'tag:TagResources': 3,
        'tag:UntagResources': 1,
        'ec2:CreateTags': 1,
        'ec2:DeleteTags': 1,
      }),
    ).to.deep.equal({ assumeRole: 2, getCallerIdentity: 1, tagWrites: 6 });
    expect(awsCallCounts({})).to.deep.equal({ assumeRole: 0, getCallerIdentity: 0, tagWrites: 0 });
  });

  it('puts the calls made beside their minimum, lists conflicts, and names refused clusters with the reason', () => {
    const lines = renderSummary(summary({ assumeRole: 2, getCallerIdentity: 1, tagWrites: 1 }));
    expect(lines[0]).to.equal('Converged in 2.3 s: 1 of 2 clusters Ready, 1 refused.');
    expect(lines).to.include(
      'STS calls:  3 (2 AssumeRole + 1 GetCallerIdentity); minimum 3 (2 role links + 1 credential set)',
    );
    expect(lines).to.include('Tag writes: 1 call for 3 resources changed; minimum 1');
    expect(lines).to.include('Conflicts:  1');
    expect(lines).to.include(
      '  tenant-b/analytics-dev: tenant="tenant-b" from AWSClusterRoleIdentity/tenant-b (overridePolicy: Deny) wins over "analytics" from AWSCluster tenant-b/analytics-dev',
    );
    expect(lines).to.include('Refused:    1');
    expect(lines).to.include(
      '  tenant-c/reporting-prod: PrincipalUsageUnauthorized: namespace "tenant-c" may not use AWSClusterRoleIdentity/tenant-b',
    );
  });

  it('tells the clusters as they are now: a refused cluster fixed after convergence is counted Ready', () => {
    const fixed = [rows[0]!, clusterRow(awsCluster('tenant-c', 'reporting-prod', readyStatus))];
    const lines = renderSummary(summary({ assumeRole: 2, getCallerIdentity: 1, tagWrites: 1 }), fixed);
    expect(lines[0]).to.equal('Converged in 2.3 s: 2 of 2 clusters Ready, 0 refused.');
    expect(lines).to.include('Refused:    0');
    expect(lines.join('\n')).to.not.include('PrincipalUsageUnauthorized');
  });

  it('shows calls beyond the minimum as they are', () => {
    const lines = renderSummary(summary({ assumeRole: 5, getCallerIdentity: 4, tagWrites: 2 }));
    expect(lines[1]).to.match(/^STS calls: {2}9 .*; minimum 3 /);
    expect(lines[2]).to.match(/^Tag writes: 2 calls .*; minimum 1$/);
  });
});
