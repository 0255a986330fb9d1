import { expect } from 'chai';
import { ClusterNames } from '../../src/awscluster/cluster-names.js';

describe('ClusterNames', () => {
  it('finds clusters with one clusterName in one account, and lets them go', () => {
    const names = new ClusterNames();
    expect(names.claim('a/prod', '111111111111', 'prod')).to.deep.equal([]);
    expect(names.claim('b/prod', '222222222222', 'prod'), 'another account').to.deep.equal([]);
    expect(names.claim('c/prod', '111111111111', 'prod')).to.deep.equal(['a/prod']);
    expect(names.claim('a/prod', '111111111111', 'prod')).to.deep.equal(['c/prod']);
    expect(names.release('c/prod')).to.deep.equal(['a/prod']);
    expect(names.claim('a/prod', '111111111111', 'prod')).to.deep.equal([]);
    expect(names.claim('a/prod', '333333333333', 'prod'), 'moved accounts').to.deep.equal([]);
    expect(names.claim('d/prod', '111111111111', 'prod')).to.deep.equal([]);
  });
});
