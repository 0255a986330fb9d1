import { expect } from 'chai';
import { ClusterNames, type Claimant } from '../../src/awscluster/cluster-names.js';

const claimant = (key: string, accountId: string, regions = ['eu-west-1'], clusterName = 'prod'): Claimant => ({
  key,
  clusterName,
  accountId,
  regions,
});

describe('ClusterNames', () => {
  it('finds the rivals of a cluster: one clusterName, one account, a region in common', () => {
    const names = new ClusterNames();
    names.record(claimant('a/prod', '111111111111'));
    names.record(claimant('b/prod', '222222222222'));
    names.record(claimant('c/prod', '111111111111', ['us-east-1']));
    names.record(claimant('d/prod', '111111111111', ['us-east-1', 'eu-west-1']));
    names.record(claimant('e/dev', '111111111111', ['eu-west-1'], 'dev'));
    const keys = (found: Claimant[]) => found.map(({ key }) => key);
    expect(keys(names.rivals(claimant('a/prod', '111111111111')))).to.deep.equal(['d/prod']);
    expect(keys(names.rivals(claimant('c/prod', '111111111111', ['us-east-1'])))).to.deep.equal(['d/prod']);
    expect(names.release('d/prod')).to.deep.equal(['a/prod', 'b/prod', 'c/prod']);
    expect(keys(names.rivals(claimant('a/prod', '111111111111')))).to.deep.equal([]);
  });

  it('names the clusters a changed record affects, and none when it is unchanged', () => {
    const names = new ClusterNames();
    names.record(claimant('a/prod', '111111111111'));
    expect(names.record(claimant('b/prod', '111111111111')), 'b joined').to.deep.equal(['a/prod']);
    expect(names.record(claimant('b/prod', '111111111111')), 'steady').to.deep.equal([]);
    expect(names.record(claimant('b/prod', '222222222222')), 'b moved accounts').to.deep.equal(['a/prod']);
    expect(names.refuse('b/prod', 'prod'), 'b refused').to.deep.equal(['a/prod']);
    expect(names.refuse('b/prod', 'prod'), 'still refused').to.deep.equal([]);
  });

  it('tells which clusters this process has checked, resolved or refused', () => {
    const names = new ClusterNames();
    expect(names.checked('a/prod')).to.equal(false);
    names.refuse('a/prod', 'prod');
    expect(names.checked('a/prod')).to.equal(true);
    expect(names.rivals(claimant('b/prod', '111111111111')), 'a refused claims nothing').to.deep.equal([]);
    names.record(claimant('a/prod', '111111111111'));
    expect(names.rivals(claimant('b/prod', '111111111111')).map(({ key }) => key)).to.deep.equal(['a/prod']);
    names.release('a/prod');
    expect(names.checked('a/prod')).to.equal(false);
  });
});
