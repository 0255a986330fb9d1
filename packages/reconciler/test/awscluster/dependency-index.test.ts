import { expect } from 'chai';
import { DependencyIndex } from '../../src/awscluster/dependency-index.js';

describe('DependencyIndex', () => {
  it('finds exactly the clusters whose chains touch an identity or Secret, and follows re-records', () => {
    const index = new DependencyIndex();
    index.record('tenant-a/one', ['AWSClusterStaticIdentity/a', 'Secret/a-keys']);
    index.record('tenant-b/two', [
      'AWSClusterRoleIdentity/b',
      'AWSClusterRoleIdentity/hub',
      'AWSClusterControllerIdentity/default',
    ]);
    index.record('tenant-b/three', ['AWSClusterRoleIdentity/hub', 'AWSClusterControllerIdentity/default']);
    expect(index.dependents('AWSClusterRoleIdentity/hub').sort()).to.deep.equal(['tenant-b/three', 'tenant-b/two']);
    expect(index.dependents('Secret/a-keys')).to.deep.equal(['tenant-a/one']);
    index.record('tenant-b/three', ['AWSClusterStaticIdentity/a', 'Secret/a-keys']);
    expect(index.dependents('AWSClusterRoleIdentity/hub')).to.deep.equal(['tenant-b/two']);
    index.forget('tenant-b/two');
    expect(index.dependents('AWSClusterRoleIdentity/hub')).to.deep.equal([]);
    expect(index.dependencies('tenant-b/three')).to.deep.equal(['AWSClusterStaticIdentity/a', 'Secret/a-keys']);
  });
});
