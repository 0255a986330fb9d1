import { API_VERSION, type AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import { ClustersByName } from '../../src/kube/clusters-by-name.js';

const cluster = (namespace: string, name: string, clusterName?: string): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { namespace, name },
  spec: { region: 'us-west-2', ...(clusterName ? { clusterName } : {}) },
});
const keys = (index: ClustersByName, clusterName: string) =>
  index
    .named(clusterName)
    .map(({ namespace, name }) => `${namespace}/${name}`)
    .sort();

describe('ClustersByName', () => {
  it('files clusters under spec.clusterName, else their name, and moves them when it changes', () => {
    const index = new ClustersByName();
    index.set(cluster('a', 'prod'));
    index.set(cluster('b', 'x', 'prod'));
    index.set(cluster('c', 'other'));
    expect(keys(index, 'prod')).to.deep.equal(['a/prod', 'b/x']);

    index.set(cluster('b', 'x', 'renamed'));
    expect(keys(index, 'prod')).to.deep.equal(['a/prod']);
    expect(keys(index, 'renamed')).to.deep.equal(['b/x']);
  });

  it('forgets a deleted cluster, and a name left without clusters', () => {
    const index = new ClustersByName();
    index.set(cluster('a', 'prod'));
    index.remove(cluster('a', 'prod'));
    index.remove(cluster('a', 'never-filed'));
    expect(index.named('prod')).to.deep.equal([]);
  });
});
