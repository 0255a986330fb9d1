import { ApiError } from '../../protocols/api-error.js';
import { parseArn } from '../../world/arn.js';
import type { Resource } from '../../world/resources.js';
import { Constraints } from '../constraints.js';
import { paginate } from '../pagination.js';
import type { CallContext } from '../service.js';
import { optionalNumber, optionalRecords, optionalString, optionalStrings } from './input.js';

interface TagFilter {
  readonly key: string;
  readonly values: readonly string[];
}

const TYPE_FILTER = /^[a-z0-9-]+(:[A-Za-z0-9\-/]+)?$/;

/**
 * GetResources: the caller's resources in the signed region that have (or once had) tags, filtered by
 * tags (AND across filters, OR within one filter's values, no values meaning "has the key"), by
 * `service[:type]`, or by a list of ARNs (answered in one page); at most 100 a page, and at most
 * `TagsPerPage` tags a page when it is given.
 */
export function getResources(input: Record<string, unknown>, call: CallContext): object {
  call.authorize('tag:GetResources', '*');
  const tagFilters = (optionalRecords(input, 'TagFilters') ?? []).map((filter, index): TagFilter => {
    const key = optionalString(filter, 'Key');
    if (key === undefined) throw new ApiError('InvalidParameterException', `TagFilters[${index}].Key is required.`);
    return { key, values: optionalStrings(filter, 'Values') ?? [] };
  });
  const typeFilters = optionalStrings(input, 'ResourceTypeFilters') ?? [];
  const arnList = optionalStrings(input, 'ResourceARNList');
  const perPage = optionalNumber(input, 'ResourcesPerPage');
  const tagsPerPage = optionalNumber(input, 'TagsPerPage');
  const token = optionalString(input, 'PaginationToken');
  const check = new Constraints();
  check.size(
    'tagFilters',
    tagFilters.map(({ key, values }) => ({ Key: key, Values: values })),
    0,
    50,
  );
  tagFilters.forEach((filter, i) => {
    check.length(`tagFilters.${i + 1}.member.key`, filter.key, 1, 128);
    check.size(`tagFilters.${i + 1}.member.values`, filter.values, 0, 20);
    filter.values.forEach((value, j) =>
      check.length(`tagFilters.${i + 1}.member.values.${j + 1}.member`, value, 0, 256),
    );
  });
  check.range('resourcesPerPage', perPage, 1, 100);
  check.range('tagsPerPage', tagsPerPage, 100, 500);
  check.size('resourceARNList', arnList, 1, 100);
  check.throwIfAny('InvalidParameterException');
  const badType = typeFilters.find((filter) => !TYPE_FILTER.test(filter));
  if (badType !== undefined) {
    throw new ApiError(
      'InvalidParameterException',
      `Unsupported resource type filter: ${badType}. Use service[:resourceType], such as ec2:instance.`,
    );
  }
  if (arnList !== undefined && (tagFilters.length > 0 || typeFilters.length > 0)) {
    throw new ApiError(
      'InvalidParameterException',
      'ResourceARNList cannot be combined with TagFilters or ResourceTypeFilters.',
    );
  }
  // A list of ARNs is answered in one page: AWS refuses it with any pagination parameter.
  if (arnList !== undefined && (perPage !== undefined || tagsPerPage !== undefined || (token ?? '') !== '')) {
    throw new ApiError(
      'InvalidParameterException',
      'ResourceARNList cannot be combined with ResourcesPerPage, TagsPerPage or PaginationToken.',
    );
  }
  const badArn = arnList?.find((arn) => parseArn(arn) === undefined);
  if (badArn !== undefined) throw new ApiError('InvalidParameterException', `${badArn} is not a valid ARN.`);

  const { resources } = call.world;
  const { accountId } = call.principal;
  const types = typeFilters.map(parseTypeFilter);
  // A list of ARNs is looked up rather than searched for; the filters below then only check everTagged.
  const candidates =
    arnList === undefined
      ? resources.inScope(accountId, call.region)
      : resources.listedInScope(accountId, call.region, arnList);
  const matching = candidates.filter(
    (resource) =>
      resource.everTagged &&
      (types.length === 0 || types.some((type) => typeMatches(resource, type))) &&
      tagFilters.every((filter) => tagMatches(resource, filter)),
  );
  const page = paginate(
    matching,
    perPage ?? 100,
    token,
    { tagFilters, typeFilters, arnList },
    // A page never splits a resource's tags; a resource without tags counts as one.
    tagsPerPage === undefined ? undefined : { max: tagsPerPage, weight: (resource) => Math.max(1, resource.tags.size) },
  );
  if (page === undefined)
    throw new ApiError('InvalidParameterException', 'The pagination token is not valid for this request.');
  call.note({ returned: page.items.length });
  return {
    PaginationToken: page.nextToken ?? '',
    ResourceTagMappingList: page.items.map((resource) => ({
      ResourceARN: resource.arn,
      Tags: [...resource.tags].map(([Key, Value]) => ({ Key, Value })),
    })),
  };
}

interface TypeFilter {
  readonly service: string;
  readonly type: string | undefined;
}

function parseTypeFilter(filter: string): TypeFilter {
  const [service, type] = filter.split(':');
  return { service: service!, type };
}

function typeMatches(resource: Resource, filter: TypeFilter): boolean {
  return (
    resource.parts.service === filter.service &&
    (filter.type === undefined || resource.parts.resourceType === filter.type)
  );
}

function tagMatches(resource: Resource, filter: TagFilter): boolean {
  const value = resource.tags.get(filter.key);
  return value !== undefined && (filter.values.length === 0 || filter.values.includes(value));
}
