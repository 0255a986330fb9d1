import { expect } from 'chai';
import type { Manifest } from '@keymaster/testenv';
import { clusterIdentities, minimumStsCalls, minimumTagWrites, type TaggedResource } from '../../src/demo/minimums.js';

const object = (kind: string, name: string, spec: Record<string, unknown>, namespace?: string): Manifest => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec,
});
const role = (name: string, source?: string) =>
  object('AWSClusterRoleIdentity', name, {
    roleARN: `arn:aws:iam::111111111111:role/${name}`,
    ...(source ? { sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: source } } : {}),
  });
const cluster = (namespace: string, name: string, identityRef?: { kind: string; name: string }) =>
  object('AWSCluster', name, { region: 'eu-west-1', ...(identityRef ? { identityRef } : {}) }, namespace);

describe('demo: minimums', () => {
  describe('STS calls', () => {
    const objects = [
      role('hub'),
      role('tenant-b', 'hub'),
      role('tenant-d', 'hub'),
      object('AWSClusterStaticIdentity', 'tenant-a', { secretRef: 'a' }),
      cluster('b', 'b1', { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' }),
      cluster('b', 'b2', { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' }),
      cluster('d', 'd1', { kind: 'AWSClusterRoleIdentity', name: 'tenant-d' }),
      cluster('a', 'a1', { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' }),
      cluster('p', 'p1'),
    ];

    it('counts each role link once however many chains pass through it, and one GetCallerIdentity per identity clusters act with', () => {
      const clusters = [
        { namespace: 'b', name: 'b1' },
        { namespace: 'b', name: 'b2' },
        { namespace: 'd', name: 'd1' },
        { namespace: 'a', name: 'a1' },
      ];
      expect(minimumStsCalls(objects, clusters)).to.deep.equal({ assumeRole: 3, getCallerIdentity: 3 });
    });

    it("adds one narrowed session per namespace, identity and session policy of the requests given, their sources shared with clusters'", () => {
      const statements = [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }];
      const request = (namespace: string, name: string, fields: Record<string, unknown> = {}) =>
        object(
          'AWSCredentialsRequest',
          name,
          {
            identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
            statements,
            secretRef: { name },
            ...fields,
          },
          namespace,
        );
      const withRequests = [
        ...objects,
        request('b', 'r1'),
        request('b', 'r2'),
        request('b', 'r3', { durationSeconds: 900 }),
        request('e', 'r4'),
      ];
      const clusters = [{ namespace: 'b', name: 'b1' }];
      const served = ['r1', 'r2', 'r3'].map((name) => ({ namespace: 'b', name }));
      // hub and tenant-b for the cluster; r1 and r2 share a session, r3 has its own; hub is shared.
      expect(minimumStsCalls(withRequests, clusters, served)).to.deep.equal({ assumeRole: 4, getCallerIdentity: 3 });
      expect(
        minimumStsCalls(withRequests, clusters, [...served, { namespace: 'e', name: 'r4' }]),
        'another namespace, another session',
      ).to.deep.equal({ assumeRole: 5, getCallerIdentity: 4 });
    });

    it('counts only the clusters given (the refused ones cost nothing) and the controller identity as the default', () => {
      expect(minimumStsCalls(objects, [{ namespace: 'p', name: 'p1' }])).to.deep.equal({
        assumeRole: 0,
        getCallerIdentity: 1,
      });
      expect(minimumStsCalls(objects, [{ namespace: 'b', name: 'b1' }])).to.deep.equal({
        assumeRole: 2,
        getCallerIdentity: 1,
      });
      expect(minimumStsCalls(objects, [])).to.deep.equal({ assumeRole: 0, getCallerIdentity: 0 });
    });
  });

  describe('tag writes', () => {
    const owned = (cluster: string) => ({ [`sigs.k8s.io/cluster-api-provider-aws/cluster/${cluster}`]: 'owned' });
    const instance = (region: string, account: string, id: number, tags: Record<string, string>): TaggedResource => ({
      arn: `arn:aws:ec2:${region}:${account}:instance/i-${String(id).padStart(17, '0')}`,
      tags,
    });
    const loadBalancer = (id: number, tags: Record<string, string>): TaggedResource => ({
      arn: `arn:aws:elasticloadbalancing:eu-west-1:333333333333:loadbalancer/net/lb-${id}/${String(id).padStart(16, '0')}`,
      tags,
    });
    const tagAll = (resources: TaggedResource[], extra: Record<string, string>) =>
      resources.map(({ arn, tags }) => ({ arn, tags: { ...tags, ...extra } }));

    /** Clusters a and b act with one identity, c with another. */
    const identityOf = (clusterName: string) =>
      clusterIdentities([
        cluster('x', 'a', { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' }),
        object(
          'AWSCluster',
          'b-object',
          { clusterName: 'b', identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' } },
          'y',
        ),
        cluster('z', 'c'),
      ]).get(clusterName);

    it("fits 20 resources needing the same tags in one Tagging API write, 1,000 in one of EC2's", () => {
      const balancers = Array.from({ length: 41 }, (_, id) => loadBalancer(id, owned('a')));
      expect(minimumTagWrites(balancers, tagAll(balancers, { team: 'x' }), identityOf)).to.deep.equal({
        resources: 41,
        minimumCalls: 3,
      });
      const instances = Array.from({ length: 1001 }, (_, id) => instance('eu-west-1', '333333333333', id, owned('a')));
      expect(minimumTagWrites(instances, tagAll(instances, { team: 'x' }), identityOf)).to.deep.equal({
        resources: 1001,
        minimumCalls: 2,
      });
      // Both kinds at once: each API its own calls.
      const both = [...balancers, ...instances];
      expect(minimumTagWrites(both, tagAll(both, { team: 'x' }), identityOf).minimumCalls).to.equal(5);
      expect(minimumTagWrites(balancers, balancers, identityOf)).to.deep.equal({ resources: 0, minimumCalls: 0 });
    });

    it('lets clusters of one identity share a write (nothing of a cluster rides along), and no others', () => {
      const before = [
        instance('eu-west-1', '333333333333', 1, owned('a')),
        instance('eu-west-1', '333333333333', 2, owned('b')),
        instance('eu-west-1', '333333333333', 3, owned('c')),
      ];
      expect(minimumTagWrites(before, tagAll(before, { team: 'x' }), identityOf)).to.deep.equal({
        resources: 3,
        minimumCalls: 2,
      });
    });

    it('needs a write per credential set, region, account and set of tags', () => {
      const before = [
        instance('eu-west-1', '333333333333', 1, owned('a')),
        // Both ownership tags name the same cluster: still cluster a.
        instance('eu-west-1', '333333333333', 2, { ...owned('a'), 'kubernetes.io/cluster/a': 'owned' }),
        instance('eu-west-1', '333333333333', 3, owned('b')),
        instance('eu-central-1', '333333333333', 4, owned('a')),
        instance('eu-west-1', '222222222222', 5, owned('a')),
        instance('eu-west-1', '333333333333', 6, { ...owned('a'), team: 'old' }),
        // The AWS Load Balancer Controller's mark: cluster a's resource, written with a's identity.
        instance('eu-west-1', '333333333333', 7, { 'elbv2.k8s.aws/cluster': 'a' }),
      ];
      const after = tagAll(before, { team: 'x' });
      // a and b share their identity: eu-west-1 of 333333333333 takes one write for resources 1, 2, 3, 6 and 7.
      expect(minimumTagWrites(before, after, identityOf)).to.deep.equal({ resources: 7, minimumCalls: 3 });
      const otherValue = after.map((resource, index) =>
        index === 1 ? { ...resource, tags: { ...resource.tags, team: 'y' } } : resource,
      );
      expect(minimumTagWrites(before, otherValue, identityOf).minimumCalls).to.equal(4);
    });

    it('counts removals as their own writes', () => {
      const before = [1, 2].map((id) => instance('eu-west-1', '333333333333', id, { ...owned('a'), stale: 'v' }));
      const after = before.map(({ arn }, index) => ({
        arn,
        tags: { ...owned('a'), ...(index === 0 ? { team: 'x' } : {}) },
      }));
      expect(minimumTagWrites(before, after, identityOf)).to.deep.equal({ resources: 2, minimumCalls: 2 });
    });
  });
});
