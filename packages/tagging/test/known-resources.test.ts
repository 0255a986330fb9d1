import { expect } from 'chai';
import { resourceBytes } from '../src/batch/scan-index.js';
import type { DiscoveredResources } from '../src/discovery.js';
import { knownAfter, packedKnownBytes, packKnown, unpackKnown } from '../src/known-resources.js';

const A = 'arn:aws:ec2:us-east-1:111111111111:instance/i-a';
const B = 'arn:aws:ec2:us-east-1:111111111111:instance/i-b';

describe('knownAfter', () => {
  const planned = {
    resources: { [A]: { team: 'a', legacy: 'x' }, [B]: { team: 'a' } },
    regions: { [A]: 'us-east-1', [B]: 'us-east-1' },
  };

  it('records the writes read back, forgets the resources gone, and leaves its input as it was', () => {
    const known = knownAfter(
      planned,
      [{ arn: A, region: 'us-east-1', set: { team: 'b' }, removed: ['legacy'] }],
      [{ arn: B }],
    );
    expect(known).to.deep.equal({ resources: { [A]: { team: 'b' } }, regions: { [A]: 'us-east-1' } });
    expect(planned.resources[A]).to.deep.equal({ team: 'a', legacy: 'x' });
    expect(planned.regions).to.have.all.keys(A, B);
  });

  it('is what was planned from when nothing was written', () => {
    expect(knownAfter(planned, [], [])).to.deep.equal(planned);
  });
});

describe('packKnown: a known set kept packed', () => {
  /** 20 instances of the benchmark's fleet: the ownership tag and 5 more. */
  const fleet = (): DiscoveredResources => {
    const arns = Array.from(
      { length: 20 },
      (_, i) => `arn:aws:ec2:eu-west-1:200000000003:instance/i-${String(i).padStart(17, '0')}`,
    );
    const tags = {
      'sigs.k8s.io/cluster-api-provider-aws/cluster/cluster-00042': 'owned',
      'cost-center': '1000',
      tenant: 'tenant-03',
      team: 'team-0',
      environment: 'production',
      'red-hat-managed': 'true',
    };
    return {
      resources: Object.fromEntries(arns.map((arn) => [arn, { ...tags }])),
      regions: Object.fromEntries(arns.map((arn) => [arn, 'eu-west-1'])),
    };
  };

  it('unpacks to what it packed: keys such as __proto__, a part AWS would refuse, a resource without a region', () => {
    const resources = fleet();
    const odd: Record<string, string> = { team: 'a' };
    Object.defineProperty(odd, '__proto__', { value: 'kept', enumerable: true, writable: true });
    resources.resources[A] = odd;
    resources.regions[A] = 'us-east-1';
    resources.resources[B] = { 'with\u0000separator': 'x' };
    resources.regions[B] = 'us-east-1';
    const regionless = 'arn:aws:iam::111111111111:role/no-region';
    resources.resources[regionless] = { team: 'b' };

    const back = unpackKnown(packKnown(resources));
    expect(back).to.deep.equal(resources);
    expect(Object.hasOwn(back.resources[A]!, '__proto__')).to.equal(true);
    expect(back.regions).to.not.have.property(regionless);
  });

  it('takes under half of what the same resources take as objects', () => {
    const resources = fleet();
    const asObjects = Object.keys(resources.resources).reduce(
      (sum, arn) => sum + resourceBytes({ arn, tags: resources.resources[arn]! }) + resources.regions[arn]!.length,
      0,
    );
    expect(packedKnownBytes(packKnown(resources))).to.be.below(asObjects / 2);
  });
});
