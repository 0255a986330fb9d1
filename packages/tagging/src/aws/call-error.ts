import { AwsCallError, TaggingAccessDeniedError, type AwsCallSite } from '../errors.js';
import { awsFailureOf, failureKind } from './codes.js';

/** An SDK error as a typed error naming the action, account and region; AccessDenied gets its own class. */
export function callError(site: AwsCallSite, error: unknown): AwsCallError {
  const failure = awsFailureOf(error);
  return failureKind(failure) === 'AccessDenied'
    ? new TaggingAccessDeniedError(site, failure, error)
    : new AwsCallError(site, failure, { cause: error });
}
