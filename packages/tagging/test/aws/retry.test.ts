import { expect } from 'chai';
import { backoffMs, retrying, retryPolicy } from '../../src/aws/retry.js';
import { DEFAULT_RETRY_POLICY, TaggingInputError } from '../../src/index.js';
import { virtualClock } from '../support/virtual-clock.js';

const awsError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('backoffMs', () => {
  const policy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles from the base delay, capped, with half of each wait random', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, policy, () => 0))).to.deep.equal([
      50, 100, 200, 400, 500,
    ]);
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, policy, () => 1))).to.deep.equal([
      100, 200, 400, 800, 1000,
    ]);
  });
});

describe('retrying', () => {
  const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('sends again after a backoff while AWS throttles or fails inside, then returns the answer', async () => {
    const clock = virtualClock();
    const failures = [awsError('ThrottledException', 400), awsError('InternalServiceException', 500)];
    let attempts = 0;
    const answer = await retrying(
      () => {
        attempts++;
        const failure = failures.shift();
        return failure ? Promise.reject(failure) : Promise.resolve('done');
      },
      policy,
      clock,
    );
    expect([answer, attempts, clock.sleeps.length]).to.deep.equal(['done', 3, 2]);
    expect(clock.sleeps[0]).to.be.within(50, 100);
    expect(clock.sleeps[1]).to.be.within(100, 200);
  });

  /** Retries a call that always fails with `name`: the error it gives up with, how often it tried and waited. */
  async function alwaysFailing(name: string) {
    const clock = virtualClock();
    let attempts = 0;
    const call = () => {
      attempts++;
      return Promise.reject(awsError(name, 400));
    };
    const error = await retrying(call, policy, clock).catch((failure: unknown) => failure);
    return [(error as Error).name, attempts, clock.sleeps.length];
  }

  it('gives up after maxAttempts with the last error', async () => {
    expect(await alwaysFailing('ThrottledException')).to.deep.equal(['ThrottledException', 4, 3]);
  });

  it('does not send again what no retry fixes', async () => {
    expect(await alwaysFailing('AccessDeniedException')).to.deep.equal(['AccessDeniedException', 1, 0]);
  });
});

describe('retryPolicy', () => {
  it('fills in the defaults, for fields absent or undefined', () => {
    expect(retryPolicy({ maxAttempts: 2, baseDelayMs: undefined })).to.deep.equal({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 2,
    });
  });

  it('refuses values out of bounds, naming the field', () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).to.throw(TaggingInputError, /^retry\.maxAttempts: is 0/);
    expect(() => retryPolicy({ baseDelayMs: -1 })).to.throw(TaggingInputError, /^retry\.baseDelayMs: is -1/);
    expect(() => retryPolicy({ maxDelayMs: Number.NaN })).to.throw(TaggingInputError, /^retry\.maxDelayMs: is NaN/);
  });
});
