import { expect } from 'chai';
import {
  ACCESS_REVIEW_CACHE_SIZE,
  ACCESS_REVIEW_TTL_MS,
  cachedAccessReview,
  type AccessReview,
  type ClusterRead,
} from '../../src/inspect-api/access-review.js';
import type { FrontProxyUser } from '../../src/inspect-api/front-proxy.js';

const user = (username: string, groups: string[] = ['tenant-a']): FrontProxyUser => ({ username, groups, extra: {} });
const GET: ClusterRead = { verb: 'get', namespace: 'tenant-a', name: 'prod' };

describe('cachedAccessReview', () => {
  let time: number;
  let asked: string[];
  let allow: boolean;
  let fail: boolean;
  const review: AccessReview = (who, read) => {
    asked.push(`${who.username} ${read.verb} ${read.namespace ?? '*'}/${read.name ?? '*'}`);
    if (fail) return Promise.reject(new Error('API server unreachable'));
    return Promise.resolve({ allowed: allow });
  };
  let cached: AccessReview;
  beforeEach(() => {
    time = 0;
    asked = [];
    allow = true;
    fail = false;
    cached = cachedAccessReview(review, () => time);
  });

  it('asks once per user and read within the TTL, then again', async () => {
    expect(await cached(user('a'), GET)).to.deep.equal({ allowed: true });
    allow = false;
    time = ACCESS_REVIEW_TTL_MS - 1;
    expect(await cached(user('a'), GET)).to.deep.equal({ allowed: true });
    time = ACCESS_REVIEW_TTL_MS;
    expect(await cached(user('a'), GET)).to.deep.equal({ allowed: false });
    expect(asked).to.deep.equal(['a get tenant-a/prod', 'a get tenant-a/prod']);
  });

  it('never answers one user, group set or read with another’s answer', async () => {
    await cached(user('a'), GET);
    await cached(user('b'), GET);
    await cached(user('a', ['tenant-a', 'system:masters']), GET);
    await cached(user('a'), { ...GET, name: 'other' });
    await cached(user('a'), { verb: 'list', namespace: 'tenant-a' });
    await cached(user('a'), { verb: 'list' });
    expect(asked).to.have.length(6);
  });

  it('keeps no failed review', async () => {
    fail = true;
    await cached(user('a'), GET).then(
      () => expect.fail('the failure must reach the caller'),
      (error: unknown) => expect((error as Error).message).to.equal('API server unreachable'),
    );
    fail = false;
    expect(await cached(user('a'), GET)).to.deep.equal({ allowed: true });
    expect(asked).to.have.length(2);
  });

  it(`keeps at most ${ACCESS_REVIEW_CACHE_SIZE} answers, dropping the oldest`, async () => {
    for (let index = 0; index <= ACCESS_REVIEW_CACHE_SIZE; index++) await cached(user(`u${index}`), GET);
    await cached(user(`u${ACCESS_REVIEW_CACHE_SIZE}`), GET);
    await cached(user('u1'), GET);
    expect(asked).to.have.length(ACCESS_REVIEW_CACHE_SIZE + 1);
    await cached(user('u0'), GET);
    expect(asked).to.have.length(ACCESS_REVIEW_CACHE_SIZE + 2);
  });
});
