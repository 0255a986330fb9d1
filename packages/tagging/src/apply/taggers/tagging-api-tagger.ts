import { resourceFailure } from '../../aws/failed-resources.js';
import { getAllResources, MAX_RESOURCES_PER_PAGE } from '../../aws/get-resources.js';
import type { ApiContext } from '../../aws/region-api.js';
import { TAGGING_API_FAMILIES, TaggingApi } from '../../aws/tagging-api.js';
import type { ReadOutcome, WriteOutcome } from '../../batch/session-batchers.js';
import { MAX_ARNS_PER_CALL } from '../../plan/batches.js';
import type { Grant } from '../../rate-limit/rate-limiter.js';
import type { Write } from '../types.js';
import type { Tagger, TaggerKind } from './tagger.js';

/**
 * The Resource Groups Tagging API: every service's resources, 20 ARNs a write with a failure per ARN
 * (`FailedResourcesMap`), read back by ARN with GetResources. The tagger of every service without
 * its own.
 */
export const TAGGING_API_TAGGER: TaggerKind = {
  name: 'default',
  actions: { set: 'tag:TagResources', remove: 'tag:UntagResources' },
  readAction: 'tag:GetResources',
  writeCapacity: MAX_ARNS_PER_CALL,
  writeFamily: TAGGING_API_FAMILIES.writes,
  readCapacity: MAX_RESOURCES_PER_PAGE,
  removesByValue: false,
  // GetResources takes ARNs or tag filters, not both.
  readsByKey: false,
  // A whole call's refusal: the credentials' access, which every ARN shares (a resource's own comes per ARN).
  sharedFailures: new Set(['Throttled', 'Unavailable', 'AccessDenied']),
  create: (context, region) => new TaggingApiTagger(context, region),
};

class TaggingApiTagger implements Tagger {
  readonly #api: TaggingApi;

  constructor(
    private readonly context: ApiContext,
    region: string,
  ) {
    this.#api = new TaggingApi(context, region);
  }

  get writes() {
    return this.#api.writes;
  }

  get reads() {
    return this.#api.reads;
  }

  async write(call: Write, arns: string[], grant: Grant | undefined): Promise<Map<string, WriteOutcome>> {
    const output =
      call.action === TAGGING_API_TAGGER.actions.set
        ? await this.#api.tagResources({ ResourceARNList: arns, Tags: call.tags }, grant)
        : await this.#api.untagResources({ ResourceARNList: arns, TagKeys: call.keys }, grant);
    const failed = output.FailedResourcesMap ?? {};
    return new Map(arns.map((arn) => [arn, Object.hasOwn(failed, arn) ? resourceFailure(failed[arn]!) : undefined]));
  }

  async read(arns: string[], grant: Grant): Promise<Map<string, ReadOutcome>> {
    const read = new Map<string, ReadOutcome>();
    for (const { arn, tags } of await getAllResources(this.#api, this.context, { ResourceARNList: arns }, grant))
      read.set(arn, { tags });
    return read;
  }
}
