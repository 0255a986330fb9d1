import { expect } from 'chai';
import { clusterRow, converged, isReady, isRefused } from '../../src/demo/clusters.js';
import { awsCluster, failingStatus, readyStatus, refusedStatus } from './fixtures.js';

describe('demo: cluster rows', () => {
  it('reads a Ready cluster: the resolved chain, account, tag counts, conflicts', () => {
    const row = clusterRow(awsCluster('tenant-b', 'analytics-dev', readyStatus));
    expect(row).to.deep.include({
      namespace: 'tenant-b',
      name: 'analytics-dev',
      chain: ['Role/tenant-b', 'Role/keymaster-hub', 'Controller/default'],
      account: '333333333333',
      allowed: 'True',
      discovered: 3,
      inSync: 3,
      drifted: 0,
      current: true,
    });
    expect(row.conflicts.map(({ key }) => key)).to.deep.equal(['tenant']);
    expect(isReady(row)).to.equal(true);
    expect(isRefused(row)).to.equal(false);
  });

  it("shows a cluster's own identity until the chain is resolved, and the controller identity when it names none", () => {
    expect(clusterRow(awsCluster('tenant-c', 'reporting-prod')).chain).to.deep.equal(['Role/tenant-b']);
    const ownCredentials = awsCluster('platform', 'hub');
    delete ownCredentials.spec.identityRef;
    expect(clusterRow(ownCredentials).chain).to.deep.equal(['Controller/default']);
    expect(
      clusterRow(awsCluster('tenant-a', 'x', undefined, { kind: 'AWSClusterStaticIdentity', name: 'a' })).chain,
    ).to.deep.equal(['Static/a']);
  });

  it('tells a refusal by allowedNamespaces from a failure', () => {
    const refused = clusterRow(awsCluster('tenant-c', 'reporting-prod', refusedStatus));
    expect(isRefused(refused)).to.equal(true);
    expect(refused.ready).to.deep.include({ status: 'False', reason: 'PrincipalUsageUnauthorized' });
    const failing = clusterRow(awsCluster('tenant-b', 'analytics-prod', failingStatus));
    expect(isRefused(failing)).to.equal(false);
    expect(isReady(failing)).to.equal(false);
  });

  it('does not trust a status written for an older generation', () => {
    const cluster = awsCluster('tenant-b', 'analytics-dev', readyStatus);
    cluster.metadata.generation = 2;
    expect(isReady(clusterRow(cluster))).to.equal(false);
  });

  it('converges when every cluster is Ready or refused, and not before', () => {
    const ready = clusterRow(awsCluster('tenant-b', 'analytics-dev', readyStatus));
    const refused = clusterRow(awsCluster('tenant-c', 'reporting-prod', refusedStatus));
    const pending = clusterRow(awsCluster('tenant-b', 'analytics-prod'));
    const failing = clusterRow(awsCluster('tenant-b', 'analytics-prod', failingStatus));
    expect(converged([ready, refused])).to.equal(true);
    expect(converged([ready, refused, pending])).to.equal(false);
    expect(converged([ready, failing])).to.equal(false);
    expect(converged([]), 'no clusters yet').to.equal(false);
  });
});
