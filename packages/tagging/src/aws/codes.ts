/** How Keymaster reads AWS's answers: which failures a retry may fix, which say "no", which say "gone". */

/** Codes by which AWS says "slow down": the tagging API's own, EC2's, and those other services pass through. */
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
]);

const ACCESS_DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation']);

/** Failures on AWS's side that a later attempt may not meet. */
const TRANSIENT = new Set([
  'InternalServiceException',
  'InternalFailure',
  'InternalError',
  'InternalServerError',
  'ServiceUnavailable',
  'Unavailable',
]);

/** One failure as AWS reported it: a whole call's error, or one ARN's entry of `FailedResourcesMap`. */
export interface AwsFailure {
  code: string;
  message: string;
  /** The HTTP status; absent when no answer came (a network error). */
  status?: number;
}

/**
 * What a failure means to Keymaster. `Gone`: the resource no longer exists. `AccessDenied`: the
 * identity may not do this. `Throttled` and `Unavailable`: a later attempt may succeed. `Rejected`:
 * AWS refused the request for another reason, and sending it again would not change that.
 */
export type FailureKind = 'Gone' | 'AccessDenied' | 'Throttled' | 'Unavailable' | 'Rejected';

export function failureKind({ code, message, status }: AwsFailure): FailureKind {
  if (THROTTLING.has(code) || status === 429) return 'Throttled';
  if (ACCESS_DENIED.has(code) || status === 403) return 'AccessDenied';
  if (TRANSIENT.has(code) || status === undefined || status >= 500) return 'Unavailable';
  // The tagging API passes the service's own error through: InvalidInstanceID.NotFound,
  // SnapshotNotFoundFault, ResourceNotFoundException, or InvalidParameterException "... does not exist".
  if (/NotFound/.test(code) || status === 404 || /does not exist|not found/i.test(message)) return 'Gone';
  return 'Rejected';
}

/** Whether sending the same request again later may succeed. */
export const isRetriable = (kind: FailureKind): boolean => kind === 'Throttled' || kind === 'Unavailable';

/** An SDK error (or a network error) as an `AwsFailure`. */
export function awsFailureOf(error: unknown): AwsFailure {
  const { name, message, $metadata } = error as Error & { $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  return {
    code: typeof name === 'string' && name !== '' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
    ...(status === undefined ? {} : { status }),
  };
}
