import { ApiError } from '../../protocols/api-error.js';
import { awsJson1_1 } from '../../protocols/protocol.js';
import { Constraints } from '../constraints.js';
import { paginate } from '../pagination.js';
import type { CallContext, JsonService } from '../service.js';
import { getResources } from './get-resources.js';
import { optionalString } from './input.js';
import { tagResources, untagResources } from './tag-resources.js';

const PAGE_SIZE = 100;

/** The Resource Groups Tagging API over JSON 1.1. */
export const tagging: JsonService = {
  input: 'json',
  signingName: 'tagging',
  iamPrefix: 'tag',
  targetPrefix: 'ResourceGroupsTaggingAPI_20170126',
  protocol: awsJson1_1(),
  maxSkewSeconds: 300,
  accessDenied: (message) => new ApiError('AccessDeniedException', message, 400),
  throttled: () => new ApiError('ThrottledException', 'Rate exceeded', 400),
  actions: {
    GetResources: getResources,
    TagResources: tagResources,
    UntagResources: untagResources,
    GetTagKeys: (input, call) => {
      call.authorize('tag:GetTagKeys', '*');
      const keys = distinct(call, (tags) => tags.keys());
      const page = pageOf(keys, input, null);
      return { PaginationToken: page.nextToken ?? '', TagKeys: page.items };
    },
    GetTagValues: (input, call) => {
      call.authorize('tag:GetTagValues', '*');
      const key = optionalString(input, 'Key');
      const check = new Constraints();
      if (check.required('key', key)) check.length('key', key, 1, 128);
      check.throwIfAny('InvalidParameterException');
      const values = distinct(call, (tags) => (tags.has(key!) ? [tags.get(key!)!] : []));
      const page = pageOf(values, input, key);
      return { PaginationToken: page.nextToken ?? '', TagValues: page.items };
    },
  },
};

/** The distinct keys or values over the caller's resources in the signed region, sorted. */
function distinct(call: CallContext, pick: (tags: ReadonlyMap<string, string>) => Iterable<string>): string[] {
  const found = new Set<string>();
  for (const resource of call.world.resources.inScope(call.principal.accountId, call.region)) {
    for (const item of pick(resource.tags)) found.add(item);
  }
  return [...found].sort();
}

function pageOf(items: string[], input: Record<string, unknown>, filters: unknown) {
  const page = paginate(items, PAGE_SIZE, optionalString(input, 'PaginationToken'), filters);
  if (page === undefined)
    throw new ApiError('InvalidParameterException', 'The pagination token is not valid for this request.');
  return page;
}
