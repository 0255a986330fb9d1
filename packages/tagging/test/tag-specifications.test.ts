import { RunInstancesCommand, type TagSpecification } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { resolveEffectiveTags, TagLimitError, tagLayers, tagSpecifications } from '../src/index.js';
import { cluster, CLUSTER, policy } from './fixtures.js';

const effective = (clusterTags: Record<string, string>) =>
  resolveEffectiveTags(
    tagLayers({
      policy: policy([{ key: 'env', value: 'prod', overridePolicy: 'Deny' }]),
      identities: [],
      cluster: cluster(clusterTags),
    }),
  );

describe('tagSpecifications', () => {
  it('gives every resource type of a create call the effective and ownership tags, sorted', () => {
    const specs = tagSpecifications(effective({ team: 'a', env: 'dev' }), ['instance', 'volume'], {
      clusterName: CLUSTER,
    });
    const tags = [
      { Key: 'env', Value: 'prod' },
      { Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' },
      { Key: `sigs.k8s.io/cluster-api-provider-aws/cluster/${CLUSTER}`, Value: 'owned' },
      { Key: 'team', Value: 'a' },
    ];
    expect(specs).to.deep.equal([
      { ResourceType: 'instance', Tags: tags },
      { ResourceType: 'volume', Tags: tags },
    ]);
  });

  it("adds the creator's own tags, under the effective ones", () => {
    const specs = tagSpecifications(effective({ team: 'a' }), ['vpc'], {
      extraTags: { Name: 'analytics-dev-vpc', team: 'z' },
    });
    expect(specs[0]?.Tags).to.deep.equal([
      { Key: 'Name', Value: 'analytics-dev-vpc' },
      { Key: 'env', Value: 'prod' },
      { Key: 'team', Value: 'a' },
    ]);
  });

  it('is what the EC2 SDK takes as TagSpecifications', () => {
    const specs: TagSpecification[] = tagSpecifications(effective({}), ['instance', 'network-interface']);
    const command = new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-1', TagSpecifications: specs });
    expect(command.input.TagSpecifications?.map(({ ResourceType }) => ResourceType)).to.deep.equal([
      'instance',
      'network-interface',
    ]);
  });

  it('refuses, before any call, more user tags than AWS allows', () => {
    const extraTags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`app-${i}`, 'x']));
    expect(() => tagSpecifications(effective({ team: 'a' }), ['instance'], { extraTags, clusterName: CLUSTER }))
      .to.throw(TagLimitError, 'A new resource would carry 52 user tags; AWS allows 50')
      .with.property('code', 'ERR_KEYMASTER_TAGGING_TAG_LIMIT');
    expect(() => tagSpecifications(effective({ team: 'a' }), ['instance'], { extraTags })).not.to.throw();
  });
});
