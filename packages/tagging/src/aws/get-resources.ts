import type { GetResourcesCommandInput } from '@aws-sdk/client-resource-groups-tagging-api';
import { firstGrant } from '../rate-limit/first-grant.js';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { setEntry } from '../records.js';
import { callError } from './call-error.js';
import { retrying } from './retry.js';
import type { ApiContext } from './region-api.js';
import type { TaggingApi } from './tagging-api.js';

/** GetResources returns at most 100 resources a page, and takes at most 100 ARNs in `ResourceARNList`. */
export const MAX_RESOURCES_PER_PAGE = 100;

/** One resource of a GetResources answer. */
export interface ResourceTags {
  arn: string;
  tags: Record<string, string>;
}

/**
 * Every page of one GetResources query, each page retried on its own. Throws `AwsCallError`
 * (`TaggingAccessDeniedError` when refused) when a page keeps failing. `grant`: a token already taken
 * for the first request.
 */
export async function getAllResources(
  api: TaggingApi,
  context: ApiContext,
  input: GetResourcesCommandInput,
  grant?: Grant,
): Promise<ResourceTags[]> {
  const resources: ResourceTags[] = [];
  for await (const page of resourcePages(api, context, input, grant)) resources.push(...page.resources);
  return resources;
}

/**
 * The pages of one GetResources query, each requested when the one before is consumed (`last`: no
 * page follows), so that a consumer that stops early makes no more calls and keeps only what it wants.
 * Throws as `getAllResources` does.
 */
export async function* resourcePages(
  api: TaggingApi,
  context: ApiContext,
  input: GetResourcesCommandInput,
  grant?: Grant,
): AsyncGenerator<{ resources: ResourceTags[]; last: boolean }> {
  let token: string | undefined;
  const first = firstGrant(grant);
  // AWS refuses ResourceARNList with any pagination parameter: a list of ARNs is answered in one page.
  const perPage = input.ResourceARNList === undefined ? { ResourcesPerPage: MAX_RESOURCES_PER_PAGE } : {};
  do {
    const page = { ...input, ...perPage, ...(token ? { PaginationToken: token } : {}) };
    let answer;
    try {
      answer = await retrying(() => api.getResources(page, first()), context.retry, context.clock);
    } catch (error) {
      throw callError({ action: 'tag:GetResources', accountId: api.accountId, region: api.region }, error);
    }
    const resources: ResourceTags[] = [];
    for (const { ResourceARN, Tags } of answer.ResourceTagMappingList ?? []) {
      if (ResourceARN !== undefined) resources.push({ arn: ResourceARN, tags: tagMap(Tags) });
    }
    token = answer.PaginationToken;
    yield { resources, last: !token };
  } while (token);
}

/** AWS's tag list as a key -> value map (a plain loop: every resource of every page passes here). */
function tagMap(tags: readonly { Key?: string | undefined; Value?: string | undefined }[] = []) {
  const map: Record<string, string> = {};
  for (const { Key, Value = '' } of tags) if (Key !== undefined) setEntry(map, Key, Value);
  return map;
}
