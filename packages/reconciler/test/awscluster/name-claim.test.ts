import { API_VERSION, PAUSED_ANNOTATION, type AWSCluster } from '@keymaster/api';
import { claimOf } from '@keymaster/tagging';
import { expect } from 'chai';
import { ClusterNames, type Claimant } from '../../src/awscluster/cluster-names.js';
import { nameClaim, nameCondition } from '../../src/awscluster/name-claim.js';

const ACCOUNT = '111111111111';

function awsCluster(namespace: string, created: string, extra: Partial<AWSCluster['metadata']> = {}): AWSCluster {
  return {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { namespace, name: 'prod', creationTimestamp: created, uid: `uid-${namespace}`, ...extra },
    spec: { region: 'eu-west-1' },
  };
}
const claimantOf = (cluster: AWSCluster): Claimant => ({
  key: `${cluster.metadata.namespace}/prod`,
  clusterName: 'prod',
  accountId: ACCOUNT,
  regions: ['eu-west-1'],
});
const claimTag = (cluster: AWSCluster) => claimOf(cluster.metadata.namespace!, 'prod');

const older = awsCluster('tenant-b', '2026-01-01T00:00:00Z');
const younger = awsCluster('tenant-a', '2026-02-01T00:00:00Z');

/** The claim of `cluster` after both clusters resolved into one account. */
function checkOf(cluster: AWSCluster) {
  const names = new ClusterNames();
  for (const item of [older, younger]) names.record(claimantOf(item));
  const claim = nameClaim(cluster, claimantOf(cluster), names, [older, younger]);
  if ('wait' in claim) throw new Error('expected a check');
  return claim;
}

describe('nameClaim', () => {
  it('gives an unclaimed name to the oldest rival', () => {
    expect(checkOf(older).check.decide(new Set())).to.deep.equal({ owner: true });
    expect(checkOf(younger).check.decide(new Set()).owner).to.equal(false);
    expect(checkOf(older).rivals).to.equal(1);
  });

  it('gives a claimed name to the cluster whose claim the resources carry, even a younger one (after a move)', () => {
    const found = new Set([claimTag(younger)]);
    expect(checkOf(younger).check.decide(found)).to.deep.equal({ owner: true });
    expect(checkOf(older).check.decide(found).owner).to.equal(false);
    expect(checkOf(older).check.claim).to.equal(claimTag(older));
  });

  it('leaves the name to a paused owner, which this process never checks, when the resources carry its claim', () => {
    const paused = awsCluster('tenant-b', older.metadata.creationTimestamp!, {
      annotations: { [PAUSED_ANNOTATION]: '' },
    });
    const names = new ClusterNames();
    names.record(claimantOf(younger));
    const claim = nameClaim(younger, claimantOf(younger), names, [paused, younger]);
    if ('wait' in claim) throw new Error('a paused cluster is not waited for');
    expect(claim.check.decide(new Set([claimTag(paused)])).owner).to.equal(false);
    expect(claim.check.decide(new Set()).owner).to.equal(true);
  });

  it('takes over a claim whose cluster is gone', () => {
    const gone = new Set([claimOf('tenant-z', 'prod')]);
    expect(checkOf(older).check.decide(gone)).to.deep.equal({ owner: true });
  });

  it('never names the other cluster in what it tells the refused one', () => {
    const verdict = checkOf(younger).check.decide(new Set());
    const condition = nameCondition(claimantOf(younger), 1, true);
    for (const text of [verdict.owner ? '' : verdict.message, condition.message]) {
      expect(text).to.include('prod').and.include(ACCOUNT);
      expect(text).not.to.include('tenant-b');
    }
    expect(condition).to.include({ status: 'False', reason: 'ClusterNameClaimed' });
    expect(nameCondition(claimantOf(older), 1, false)).to.include({ status: 'False', reason: 'DuplicateClusterName' });
    expect(nameCondition(claimantOf(older), 0, false)).to.include({ status: 'True' });
  });

  it('waits while an older cluster of the name is not checked yet, unless it is paused or deleting', () => {
    const names = new ClusterNames();
    names.record(claimantOf(younger));
    expect(nameClaim(younger, claimantOf(younger), names, [older, younger])).to.have.property('wait');
    const paused = awsCluster('tenant-b', older.metadata.creationTimestamp!, {
      annotations: { [PAUSED_ANNOTATION]: '' },
    });
    expect(nameClaim(younger, claimantOf(younger), names, [paused, younger])).to.have.property('check');
    names.refuse('tenant-b/prod', 'prod');
    const claim = nameClaim(younger, claimantOf(younger), names, [older, younger]);
    if ('wait' in claim) throw new Error('a refused cluster is checked');
    expect(claim.check.decide(new Set())).to.deep.equal({ owner: true });
  });
});
