import { wildcardMatcher, type Matcher } from '../../iam/patterns.js';
import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { element, elements, type Xml } from '../../protocols/xml.js';
import { paginate } from '../pagination.js';
import type { CallContext } from '../service.js';
import type { Resource } from '../../world/resources.js';

interface TagItem {
  readonly resourceId: string;
  readonly resourceType: string;
  readonly key: string;
  readonly value: string;
  readonly tags: ReadonlyMap<string, string>;
}

type Filter = (item: TagItem) => boolean;

/** The filters DescribeTags knows; values may use `*` and `?`, several values of one filter are ORed. */
const FILTERS: Record<string, (item: TagItem, matches: Matcher) => boolean> = {
  key: (item, matches) => matches(item.key),
  value: (item, matches) => matches(item.value),
  'resource-id': (item, matches) => matches(item.resourceId),
  'resource-type': (item, matches) => matches(item.resourceType),
};

/** DescribeTags: the tags of the caller's EC2 resources in the signed region, filtered and paged. */
export function describeTags(params: QueryParams, call: CallContext): Xml {
  call.authorize('ec2:DescribeTags', '*');
  const filters = (params.structs('Filter') ?? []).map(readFilter);
  const maxText = params.get('MaxResults');
  const maxResults = maxText === undefined ? undefined : Number(maxText);
  if (maxResults !== undefined && (!Number.isInteger(maxResults) || maxResults < 5 || maxResults > 1000)) {
    throw new ApiError(
      'InvalidParameterValue',
      `Value ( ${maxText!} ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`,
    );
  }
  const items: TagItem[] = [];
  const resources = namedResources(params, call) ?? call.world.resources.inScope(call.principal.accountId, call.region);
  for (const resource of resources) {
    if (resource.parts.service !== 'ec2') continue;
    for (const [key, value] of resource.tags) {
      items.push({
        resourceId: resource.parts.resourceId,
        resourceType: resource.parts.resourceType,
        key,
        value,
        tags: resource.tags,
      });
    }
  }
  items.sort((a, b) => compare(a.resourceId, b.resourceId) || compare(a.key, b.key));
  const matching = items.filter((item) => filters.every((filter) => filter(item)));
  const page = paginate(matching, maxResults ?? 1000, params.get('NextToken'), [
    ...(params.structs('Filter') ?? []).map((f) => [...f]),
  ]);
  if (page === undefined)
    throw new ApiError('InvalidPaginationToken', `Invalid pagination token: ${params.get('NextToken')!}`);
  call.note({ returned: page.items.length });
  return elements(
    element(
      'tagSet',
      page.items.map((item) =>
        element('item', [
          element('resourceId', item.resourceId),
          element('resourceType', item.resourceType),
          element('key', item.key),
          element('value', item.value),
        ]),
      ),
    ),
    element('nextToken', page.nextToken),
  );
}

/**
 * The resources a `resource-id` filter names when its values are IDs without wildcards, looked up
 * rather than found by reading every tag of the account and region (a read-back names the few
 * resources it wrote). The filter is still applied to what is listed; undefined: read the scope.
 */
function namedResources(params: QueryParams, call: CallContext): Resource[] | undefined {
  const byId = (params.structs('Filter') ?? []).find((fields) => fields.get('Name') === 'resource-id');
  if (byId === undefined) return undefined;
  const ids = [...byId].filter(([field]) => field.startsWith('Value.')).map(([, id]) => id);
  if (ids.some((id) => /[*?]/.test(id))) return undefined;
  const named = new Set<Resource>();
  for (const id of ids) {
    const resource = call.world.resources.ec2(call.principal.accountId, call.region, id);
    if (resource !== undefined) named.add(resource);
  }
  return [...named];
}

function readFilter(fields: ReadonlyMap<string, string>): Filter {
  const name = fields.get('Name') ?? '';
  const matchers = [...fields]
    .filter(([field]) => field.startsWith('Value.'))
    .map(([, value]) => wildcardMatcher(value));
  if (name.startsWith('tag:')) {
    const tagKey = name.slice(4);
    return (item) => {
      const value = item.tags.get(tagKey);
      return value !== undefined && (matchers.length === 0 || matchers.some((matches) => matches(value)));
    };
  }
  const test = FILTERS[name];
  if (test === undefined) throw new ApiError('InvalidParameterValue', `The filter '${name}' is invalid`);
  return (item) => matchers.some((matches) => test(item, matches));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
