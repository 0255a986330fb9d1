import { expect } from 'chai';
import { awsFailureOf, failureKind, isRetriable, type AwsFailure } from '../../src/aws/codes.js';

describe('failureKind', () => {
  const cases: [AwsFailure, string][] = [
    [{ code: 'ThrottledException', message: 'Rate exceeded', status: 400 }, 'Throttled'],
    [{ code: 'Throttling', message: 'Rate exceeded', status: 400 }, 'Throttled'],
    [{ code: 'RequestLimitExceeded', message: 'Request limit exceeded.', status: 503 }, 'Throttled'],
    [{ code: 'TooManyRequestsException', message: '', status: 400 }, 'Throttled'],
    [{ code: 'SomethingElse', message: '', status: 429 }, 'Throttled'],
    [{ code: 'AccessDenied', message: 'User: x is not authorized', status: 403 }, 'AccessDenied'],
    [{ code: 'AccessDeniedException', message: 'not authorized', status: 400 }, 'AccessDenied'],
    [{ code: 'UnauthorizedOperation', message: 'You are not authorized', status: 403 }, 'AccessDenied'],
    // A denial whose message says "not found" is still a denial.
    [{ code: 'AccessDeniedException', message: 'policy not found', status: 400 }, 'AccessDenied'],
    [{ code: 'InternalServiceException', message: 'Internal error', status: 500 }, 'Unavailable'],
    [{ code: 'ServiceUnavailable', message: '', status: 503 }, 'Unavailable'],
    [{ code: 'ECONNRESET', message: 'socket hang up' }, 'Unavailable'],
    [{ code: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-1' does not exist", status: 400 }, 'Gone'],
    [{ code: 'SnapshotNotFoundFault', message: 'Snapshot x not found', status: 400 }, 'Gone'],
    [{ code: 'InvalidParameterException', message: 'The resource arn:x does not exist.', status: 404 }, 'Gone'],
    [{ code: 'InvalidParameterException', message: 'The resource arn:x does not exist.', status: 400 }, 'Gone'],
    [{ code: 'InvalidParameterException', message: 'Tagging arn:x would exceed 50 tags.', status: 400 }, 'Rejected'],
    [
      { code: 'TagLimitExceeded', message: 'The maximum number of Tags for a resource has been reached.', status: 400 },
      'Rejected',
    ],
  ];
  for (const [failure, kind] of cases) {
    it(`reads ${failure.code} (${failure.status ?? 'no answer'}) as ${kind}`, () => {
      expect(failureKind(failure)).to.equal(kind);
    });
  }

  it('retries only what a later attempt may fix', () => {
    expect(
      ['Throttled', 'Unavailable', 'AccessDenied', 'Gone', 'Rejected'].filter((kind) => isRetriable(kind as never)),
    ).to.deep.equal(['Throttled', 'Unavailable']);
  });
});

describe('awsFailureOf', () => {
  it('reads an SDK error: its name is the code, $metadata the status', () => {
    const error = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottledException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(awsFailureOf(error)).to.deep.equal({ code: 'ThrottledException', message: 'Rate exceeded', status: 400 });
  });

  it('reads a network error as one without a status', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'Error' });
    expect(awsFailureOf(error)).to.deep.equal({ code: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1' });
  });
});
