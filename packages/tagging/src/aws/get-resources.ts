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
  options: {
    grant?: Grant | undefined;
    maxPages?: number;
    /** Told each page's resources; false stops the query there (not complete). */
    accept?: (page: readonly ResourceTags[]) => boolean;
  },
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
    const found: ResourceTags[] = [];
    for (const { ResourceARN, Tags } of answer.ResourceTagMappingList ?? []) {
      if (ResourceARN !== undefined) found.push({ arn: ResourceARN, tags: tagMap(Tags) });
    }
    resources.push(...found);
    token = answer.PaginationToken;
    if (token && options.accept?.(found) === false) return { resources, pages, complete: false };
  } while (token);
  return { resources, pages, complete: true };
}

/** AWS's tag list as a key -> value map (a plain loop: every resource of every page passes here). */
function tagMap(tags: readonly { Key?: string | undefined; Value?: string | undefined }[] = []) {
  const map: Record<string, string> = {};
  for (const { Key, Value = '' } of tags) {
    if (Key === undefined) continue;
    // `__proto__` is a valid tag key: defined, not assigned (which would set the prototype instead).
    if (Key === '__proto__') Object.defineProperty(map, Key, { value: Value, enumerable: true, writable: true });
    else map[Key] = Value;
  }
  return map;
}
