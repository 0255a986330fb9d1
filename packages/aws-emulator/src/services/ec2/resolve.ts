import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import type { Resource } from '../../world/resources.js';
import type { CallContext } from '../service.js';
import { ec2NotFound } from './not-found.js';

const MAX_RESOURCE_IDS = 1000;

/** The resources named by `ResourceId.N`, all in the caller's account and signed region, or EC2's error for the first unknown one. */
export function resolveResourceIds(params: QueryParams, call: CallContext): Resource[] {
  const ids = params.list('ResourceId') ?? [];
  if (ids.length === 0) throw new ApiError('MissingParameter', 'The request must contain the parameter resourceIdSet');
  if (ids.length > MAX_RESOURCE_IDS) {
    throw new ApiError(
      'InvalidParameterValue',
      `The request may name at most ${MAX_RESOURCE_IDS} resource IDs, got ${ids.length}.`,
    );
  }
  return ids.map((id) => {
    const resource = call.world.resources.ec2(call.principal.accountId, call.region, id);
    if (resource === undefined) throw ec2NotFound(id);
    return resource;
  });
}

/** EC2's DryRun: with the permission the call would have succeeded, so EC2 answers DryRunOperation instead. */
export function endDryRun(params: QueryParams): void {
  if (params.get('DryRun') === 'true') {
    throw new ApiError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
  }
}
