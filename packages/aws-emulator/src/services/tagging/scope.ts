import { parseArn } from '../../world/arn.js';
import type { Resource } from '../../world/resources.js';
import { ec2NotFound } from '../ec2/not-found.js';
import type { CallContext } from '../service.js';

/** A per-resource failure of TagResources / UntagResources, as `FailedResourcesMap` reports it. */
export interface FailureInfo {
  readonly StatusCode: number;
  readonly ErrorCode: string;
  readonly ErrorMessage: string;
}

/**
 * Finds a resource the caller may address through the tagging API: it must exist in the caller's own
 * account and in the region the call was signed for (the API is regional). Returns the failure otherwise.
 */
export function findInScope(arn: string, call: CallContext): Resource | FailureInfo {
  const parts = parseArn(arn)!;
  if (parts.account !== call.principal.accountId || parts.region !== call.region) {
    return {
      StatusCode: 400,
      ErrorCode: 'InvalidParameterException',
      ErrorMessage: `${arn} is not in this account (${call.principal.accountId}) and region (${call.region}).`,
    };
  }
  const resource = call.world.resources.get(arn);
  if (resource !== undefined) return resource;
  if (parts.service === 'ec2') {
    const error = ec2NotFound(parts.resourceId);
    return { StatusCode: error.status, ErrorCode: error.code, ErrorMessage: error.message };
  }
  return {
    StatusCode: 404,
    ErrorCode: 'InvalidParameterException',
    ErrorMessage: `The resource ${arn} does not exist.`,
  };
}
