import { expect } from 'chai';
import { ClusterNames } from '../../src/awscluster/cluster-names.js';

describe('ClusterNames', () => {
  it('finds clusters with one clusterName in one account, and lets them go', () => {
    const names = new ClusterNames();
    expect(names.claim('a/prod', '111111111111', 'prod').others).to.deep.equal([]);
    expect(names.claim('b/prod', '222222222222', 'prod').others, 'another account').to.deep.equal([]);
    expect(names.claim('c/prod', '111111111111', 'prod').others).to.deep.equal(['a/prod']);
    expect(names.claim('a/prod', '111111111111', 'prod').others).to.deep.equal(['c/prod']);
    expect(names.release('c/prod')).to.deep.equal(['a/prod']);
    expect(names.claim('a/prod', '111111111111', 'prod').others).to.deep.equal([]);
    expect(names.claim('a/prod', '333333333333', 'prod').others, 'moved accounts').to.deep.equal([]);
    expect(names.claim('d/prod', '111111111111', 'prod').others).to.deep.equal([]);
  });

  it('names the clusters a new claim affects, and none when the claim is unchanged', () => {
    const names = new ClusterNames();
    names.claim('a/prod', '111111111111', 'prod');
    expect(names.claim('b/prod', '111111111111', 'prod').affected, 'b joined a').to.deep.equal(['a/prod']);
    expect(names.claim('b/prod', '111111111111', 'prod').affected, 'steady').to.deep.equal([]);
    expect(names.claim('b/prod', '222222222222', 'prod').affected, 'b left a').to.deep.equal(['a/prod']);
  });
});
