import { requestTagKeys } from '../../iam/context.js';
import { ApiError } from '../../protocols/api-error.js';
import { parseArn } from '../../world/arn.js';
import { setTags, type Resource } from '../../world/resources.js';
import { isSystemKey, tagProblem } from '../../tags.js';
import { Constraints } from '../constraints.js';
import type { CallContext } from '../service.js';
import { tagActionsFor, tagWriteKeys, wouldExceedTagLimit } from '../tag-writes.js';
import { optionalStringMap, optionalStrings } from './input.js';
import { findInScope, type FailureInfo } from './scope.js';

/**
 * TagResources: 1-20 ARNs, 1-50 tags. Each resource succeeds or fails on its own (not found, another
 * region, no permission for its service's tagging action, over 50 user tags, characters its service
 * refuses: EC2 takes any, the others AWS's general set); failures are listed in `FailedResourcesMap`
 * and the call itself succeeds.
 */
export function tagResources(input: Record<string, unknown>, call: CallContext): object {
  const arns = requiredArns(input);
  const tags = optionalStringMap(input, 'Tags');
  const check = new Constraints();
  if (check.required('tags', tags)) check.mapSize('tags', tags, 1, 50);
  check.throwIfAny('InvalidParameterException');
  for (const [key, value] of tags!) {
    const problem = tagProblem(key, value, { strictCharacters: false });
    if (problem !== undefined) throw new ApiError('InvalidParameterException', problem);
    if (isSystemKey(key))
      throw new ApiError('InvalidParameterException', `Tag keys starting with 'aws:' are reserved for AWS use: ${key}`);
  }
  call.authorize('tag:TagResources', '*', requestTagKeys(tags!));
  // The API takes any characters (its model's pattern is [\s\S]*); each service applies its own rules.
  const strictProblem = tags!
    .map(([key, value]) => tagProblem(key, value, { strictCharacters: true }))
    .find((problem) => problem !== undefined);
  call.note({ tagKeys: tags!.map(([key]) => key) });
  return perResource(arns, call, 'tag', (resource) => {
    if (strictProblem !== undefined && resource.parts.service !== 'ec2') {
      return failure(400, 'InvalidParameterException', `${resource.parts.service} refuses the tags: ${strictProblem}`);
    }
    if (wouldExceedTagLimit(resource, tags!)) {
      return resource.parts.service === 'ec2'
        ? failure(400, 'TagLimitExceeded', 'The maximum number of Tags for a resource has been reached.')
        : failure(400, 'InvalidParameterException', `Tagging ${resource.arn} would exceed 50 tags.`);
    }
    return { permissionKeys: tagWriteKeys(resource, tags!), apply: () => setTags(resource, tags!) };
  });
}

/** UntagResources: 1-20 ARNs, 1-50 keys; per-resource failures as for TagResources. */
export function untagResources(input: Record<string, unknown>, call: CallContext): object {
  const arns = requiredArns(input);
  const keys = optionalStrings(input, 'TagKeys');
  const check = new Constraints();
  if (check.required('tagKeys', keys)) check.size('tagKeys', keys, 1, 50);
  keys?.forEach((key, i) => check.length(`tagKeys.${i + 1}.member`, key, 1, 128));
  check.throwIfAny('InvalidParameterException');
  const reserved = keys!.find(isSystemKey);
  if (reserved !== undefined)
    throw new ApiError(
      'InvalidParameterException',
      `Tag keys starting with 'aws:' are reserved for AWS use: ${reserved}`,
    );
  call.authorize('tag:UntagResources', '*', { 'aws:TagKeys': keys! });
  call.note({ tagKeys: keys! });
  return perResource(arns, call, 'untag', (resource) => ({
    permissionKeys: { ...tagWriteKeys(resource, []), 'aws:TagKeys': keys! },
    apply: () => keys!.forEach((key) => resource.tags.delete(key)),
  }));
}

type Plan = FailureInfo | { permissionKeys: Record<string, string[]>; apply: () => void };

function perResource(
  arns: readonly string[],
  call: CallContext,
  kind: 'tag' | 'untag',
  plan: (resource: Resource) => Plan,
): object {
  const failed: Record<string, FailureInfo> = {};
  for (const arn of arns) {
    const resource = findInScope(arn, call);
    if (!('arn' in resource)) {
      failed[arn] = resource;
      continue;
    }
    const step = plan(resource);
    if ('ErrorCode' in step) {
      failed[arn] = step;
      continue;
    }
    const permission = call.permits(tagActionsFor(resource.parts.service)[kind], arn, step.permissionKeys);
    if (!permission.allowed) {
      failed[arn] = failure(403, 'AccessDeniedException', permission.message);
      continue;
    }
    step.apply();
  }
  call.note({ resourceArns: arns, failedArns: Object.keys(failed) });
  return { FailedResourcesMap: failed };
}

function requiredArns(input: Record<string, unknown>): string[] {
  const arns = optionalStrings(input, 'ResourceARNList');
  const check = new Constraints();
  if (check.required('resourceARNList', arns)) check.size('resourceARNList', arns, 1, 20);
  arns?.forEach((arn, i) => check.length(`resourceARNList.${i + 1}.member`, arn, 1, 1011));
  check.throwIfAny('InvalidParameterException');
  const invalid = arns!.find((arn) => parseArn(arn) === undefined);
  if (invalid !== undefined)
    throw new ApiError('InvalidParameterException', `${invalid} is not a valid AmazonResourceName (ARN).`);
  return arns!;
}

function failure(StatusCode: number, ErrorCode: string, ErrorMessage: string): FailureInfo {
  return { StatusCode, ErrorCode, ErrorMessage };
}
