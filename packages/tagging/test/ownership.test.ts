import { expect } from 'chai';
import { clusterNamesIn, matchesAny, ownersOf, ownershipFilters, ownershipOf } from '../src/ownership.js';

const EKS = 'tenant-a_prod-EKS';

describe('ownership: which cluster a resource belongs to, exactly', () => {
  const cases: [string, Record<string, string>, ReturnType<typeof ownershipOf>][] = [
    ['an ownership key owned', { [`kubernetes.io/cluster/${EKS}`]: 'owned' }, 'Owned'],
    ['the CAPA key shared', { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${EKS}`]: 'shared' }, 'Shared'],
    ['elbv2.k8s.aws/cluster naming it, alone', { 'elbv2.k8s.aws/cluster': EKS }, 'Owned'],
    [
      'shared wins over the name tag',
      { 'elbv2.k8s.aws/cluster': EKS, [`kubernetes.io/cluster/${EKS}`]: 'shared' },
      'Shared',
    ],
    ['a name differing in case (key)', { 'kubernetes.io/cluster/tenant-a_prod-eks': 'owned' }, 'None'],
    ['a name differing in case (value)', { 'elbv2.k8s.aws/cluster': 'tenant-a_prod-eks' }, 'None'],
    ['a longer name (value)', { 'elbv2.k8s.aws/cluster': `${EKS}-2` }, 'None'],
    ['a key differing in case', { 'Elbv2.k8s.aws/cluster': EKS }, 'None'],
    ['another value of the ownership key', { [`kubernetes.io/cluster/${EKS}`]: EKS }, 'None'],
  ];
  for (const [what, tags, expected] of cases) {
    it(`${what}: ${expected}`, () => {
      expect(ownershipOf(tags, EKS)).to.equal(expected);
      expect(matchesAny(tags, ownershipFilters(EKS, ['owned', 'shared']))).to.equal(expected !== 'None');
    });
  }

  it('queries each ownership key for the values asked, and elbv2.k8s.aws/cluster for the name', () => {
    expect(ownershipFilters(EKS, ['owned'])).to.deep.equal([
      { key: `sigs.k8s.io/cluster-api-provider-aws/cluster/${EKS}`, values: ['owned'] },
      { key: `kubernetes.io/cluster/${EKS}`, values: ['owned'] },
      { key: 'elbv2.k8s.aws/cluster', values: [EKS] },
    ]);
  });

  it('reads the names a resource speaks of as written, and its owners: the names not shared', () => {
    const tags = {
      [`kubernetes.io/cluster/${EKS}`]: 'owned',
      'sigs.k8s.io/cluster-api-provider-aws/cluster/tenant-a_prod-eks': 'shared',
      'elbv2.k8s.aws/cluster': 'tenant-b_web',
      'elbv2.k8s.aws/resource': 'LoadBalancer',
      'Kubernetes.io/cluster/other': 'owned',
      team: 'platform',
    };
    expect([...clusterNamesIn(tags)].sort()).to.deep.equal([EKS, 'tenant-a_prod-eks', 'tenant-b_web']);
    expect(ownersOf(tags)).to.deep.equal([EKS, 'tenant-b_web']);
  });
});
