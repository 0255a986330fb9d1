import type { GetResourcesCommandInput } from '@aws-sdk/client-resource-groups-tagging-api';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { callError } from './call-error.js';
import { retrying } from './retry.js';
import type { CallContext, TaggingApi } from './tagging-api.js';

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
  context: CallContext,
  input: GetResourcesCommandInput,
  grant?: Grant,
): Promise<ResourceTags[]> {
  return (await getResourcePages(api, context, input, { grant })).resources;
}

/**
 * The pages of one GetResources query, at most `maxPages` of them (`pages`: how many were read),
 * `complete` when the last one was. Throws as `getAllResources` does.
 */
export async function getResourcePages(
  api: TaggingApi,
  context: CallContext,
  input: GetResourcesCommandInput,
  options: { grant?: Grant | undefined; maxPages?: number },
): Promise<{ resources: ResourceTags[]; pages: number; complete: boolean }> {
  const resources: ResourceTags[] = [];
  let token: string | undefined;
  let taken = options.grant;
  let pages = 0;
  // AWS refuses ResourceARNList with any pagination parameter: a list of ARNs is answered in one page.
  const perPage = input.ResourceARNList === undefined ? { ResourcesPerPage: MAX_RESOURCES_PER_PAGE } : {};
  do {
    if (pages === options.maxPages) return { resources, pages, complete: false };
    const page = { ...input, ...perPage, ...(token ? { PaginationToken: token } : {}) };
    let answer;
    try {
      answer = await retrying(
        () => {
          const first = taken;
          taken = undefined;
          return api.getResources(page, first);
        },
        context.retry,
        context.clock,
      );
    } catch (error) {
      throw callError({ action: 'tag:GetResources', accountId: api.accountId, region: api.region }, error);
    }
    pages++;
    for (const { ResourceARN, Tags } of answer.ResourceTagMappingList ?? []) {
      if (ResourceARN !== undefined) resources.push({ arn: ResourceARN, tags: tagMap(Tags) });
    }
    token = answer.PaginationToken;
  } while (token);
  return { resources, pages, complete: true };
}

/** AWS's tag list as a key -> value map. */
function tagMap(tags: readonly { Key?: string | undefined; Value?: string | undefined }[] = []) {
  return Object.fromEntries(tags.filter(({ Key }) => Key !== undefined).map(({ Key, Value }) => [Key!, Value ?? '']));
}
