import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { element, type Xml } from '../../protocols/xml.js';
import { setTags } from '../../world/resources.js';
import { MAX_KEY_LENGTH, MAX_VALUE_LENGTH, isSystemKey } from '../../tags.js';
import { characterCount } from '../../text.js';
import type { CallContext } from '../service.js';
import { tagWriteKeys, wouldExceedTagLimit } from '../tag-writes.js';
import { endDryRun, resolveResourceIds } from './resolve.js';

/** CreateTags: all or nothing over up to 1000 resources; a tag without a value gets the empty value. */
export function createTags(params: QueryParams, call: CallContext): Xml {
  const tags = (params.structs('Tag') ?? []).map((tag) => [tag.get('Key') ?? '', tag.get('Value') ?? ''] as const);
  if (tags.length === 0) throw new ApiError('MissingParameter', 'The request must contain the parameter tagSet');
  for (const [key, value] of tags) checkTag(key, value);
  const resources = resolveResourceIds(params, call);
  for (const resource of resources) call.authorize('ec2:CreateTags', resource.arn, tagWriteKeys(resource, tags));
  endDryRun(params);
  if (resources.some((resource) => wouldExceedTagLimit(resource, tags))) {
    throw new ApiError('TagLimitExceeded', 'The maximum number of Tags for a resource has been reached.');
  }
  for (const resource of resources) setTags(resource, tags);
  call.note({ resourceIds: resources.map((resource) => resource.parts.resourceId), tagKeys: tags.map(([key]) => key) });
  return element('return', true);
}

/**
 * DeleteTags: a tag given with a value (even the empty one) is deleted only when the value matches;
 * a tag given without a value is deleted whatever its value; no tags at all deletes every user tag.
 */
export function deleteTags(params: QueryParams, call: CallContext): Xml {
  const tags = (params.structs('Tag') ?? []).map((tag) => ({ key: tag.get('Key') ?? '', value: tag.get('Value') }));
  for (const { key } of tags) {
    if (isSystemKey(key))
      throw new ApiError('InvalidParameterValue', "Tag keys starting with 'aws:' are reserved for internal use");
  }
  const resources = resolveResourceIds(params, call);
  for (const resource of resources) {
    const keys =
      tags.length === 0 ? [...resource.tags.keys()].filter((key) => !isSystemKey(key)) : tags.map(({ key }) => key);
    call.authorize('ec2:DeleteTags', resource.arn, { ...tagWriteKeys(resource, []), 'aws:TagKeys': keys });
  }
  endDryRun(params);
  for (const resource of resources) {
    if (tags.length === 0) {
      for (const key of [...resource.tags.keys()]) if (!isSystemKey(key)) resource.tags.delete(key);
      continue;
    }
    for (const { key, value } of tags) {
      if (value === undefined || resource.tags.get(key) === value) resource.tags.delete(key);
    }
  }
  // No key given deletes every user tag: recorded as none given.
  call.note({
    resourceIds: resources.map((resource) => resource.parts.resourceId),
    tagKeys: tags.map(({ key }) => key),
  });
  return element('return', true);
}

function checkTag(key: string, value: string): void {
  if (key === '') throw new ApiError('InvalidParameterValue', 'Tag key cannot be null or empty');
  if (characterCount(key) > MAX_KEY_LENGTH) {
    throw new ApiError('InvalidParameterValue', `Tag key exceeds the maximum length of ${MAX_KEY_LENGTH} characters`);
  }
  if (characterCount(value) > MAX_VALUE_LENGTH) {
    throw new ApiError(
      'InvalidParameterValue',
      `Tag value exceeds the maximum length of ${MAX_VALUE_LENGTH} characters`,
    );
  }
  if (isSystemKey(key))
    throw new ApiError('InvalidParameterValue', "Tag keys starting with 'aws:' are reserved for internal use");
}
