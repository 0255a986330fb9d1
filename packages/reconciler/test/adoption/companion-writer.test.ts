import { expect } from 'chai';
import { mergePatchOf } from '../../src/adoption/companion-writer.js';

describe('mergePatchOf', () => {
  it('sets what is gone to null at every depth, and replaces lists whole', () => {
    const current = {
      region: 'eu-west-1',
      additionalTags: { owner: 'me' },
      tagging: { extraRegions: ['us-east-1'] },
      clusterAPI: { additionalTags: { a: '1', b: '2' } },
    };
    const desired = { region: 'eu-west-1', clusterAPI: { additionalTags: { a: '1' } } };
    expect(mergePatchOf(current, desired)).to.deep.equal({
      region: 'eu-west-1',
      additionalTags: null,
      tagging: null,
      clusterAPI: { additionalTags: { a: '1', b: null } },
    });
  });
});
