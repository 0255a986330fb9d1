import { expect } from 'chai';
import { RateLimiters, reconcileTags, TaggingInputError, type ReconcileTagsInput } from '../../src/index.js';
import { CLUSTER } from '../fixtures.js';
import { EFFECTIVE } from '../support/harness.js';

/** A session that fails the test if anything asks it for a client: bad input must be refused first. */
const untouchable: ReconcileTagsInput['session'] = {
  accountId: '111111111111',
  client: () => expect.fail('no AWS client may be made for bad input'),
};

const input = (changes: Partial<ReconcileTagsInput>): ReconcileTagsInput => ({
  session: untouchable,
  clusterName: CLUSTER,
  regions: ['eu-west-1'],
  effective: EFFECTIVE,
  limiters: new RateLimiters(),
  ...changes,
});

describe('reconcileTags input', () => {
  const refusals: [string, Partial<ReconcileTagsInput>, RegExp][] = [
    ['no region', { regions: [] }, /^regions: is empty/],
    ['a region that is not one', { regions: ['eu-west-1', 'Europe'] }, /^regions: holds "Europe", not an AWS region/],
    ['an empty cluster name', { clusterName: '' }, /^clusterName: is empty/],
    ['a concurrency of 0', { concurrency: 0 }, /^concurrency: is 0/],
    ['a retry policy out of bounds', { retry: { maxAttempts: 0 } }, /^retry\.maxAttempts: is 0/],
  ];
  for (const [what, changes, message] of refusals) {
    it(`refuses ${what} before any call to AWS`, async () => {
      const error = await reconcileTags(input(changes)).catch((refusal: unknown) => refusal);
      expect(error).to.be.instanceOf(TaggingInputError).with.property('message').that.matches(message);
    });
  }
});
