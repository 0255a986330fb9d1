import type { Tag } from '@aws-sdk/client-ec2';
import { callError } from '../../aws/call-error.js';
import { awsFailureOf, failureKind } from '../../aws/codes.js';
import { EC2_FAMILIES, Ec2Api } from '../../aws/ec2-api.js';
import { retrying } from '../../aws/retry.js';
import type { ApiContext } from '../../aws/region-api.js';
import type { ReadOutcome, WriteOutcome } from '../../batch/session-batchers.js';
import { firstGrant } from '../../rate-limit/first-grant.js';
import type { Grant } from '../../rate-limit/rate-limiter.js';
import { entry, setEntry } from '../../records.js';
import type { Write } from '../types.js';
import type { Tagger, TaggerKind } from './tagger.js';

/** CreateTags and DeleteTags take up to 1,000 resource IDs a call (EC2 API reference, CreateTags). */
const MAX_IDS_PER_WRITE = 1000;
/** DescribeTags: at most 200 values in one filter, and at most 1,000 tags a page. */
const MAX_IDS_PER_READ = 200;
const MAX_TAGS_PER_PAGE = 1000;

/**
 * EC2's own tagging actions: CreateTags and DeleteTags, 1,000 resource IDs a call against a bucket
 * of its own (100, refilled at 10 a second) instead of the Tagging API's 20 ARNs at 5 a second; read
 * back with DescribeTags. A removal names the value the plan expects, so EC2 deletes a key only where
 * it still has the value Keymaster applied.
 */
export const EC2_TAGGER: TaggerKind = {
  name: 'ec2',
  actions: { set: 'ec2:CreateTags', remove: 'ec2:DeleteTags' },
  readAction: 'ec2:DescribeTags',
  writeCapacity: MAX_IDS_PER_WRITE,
  writeFamily: EC2_FAMILIES.writes,
  readCapacity: MAX_IDS_PER_READ,
  removesByValue: true,
  readsByKey: true,
  // EC2 refuses a whole call for one resource's access too (a tag-conditioned policy): not shared.
  sharedFailures: new Set(['Throttled', 'Unavailable']),
  create: (context, region) => new Ec2Tagger(context, region),
};

/**
 * The resource ID of an EC2 ARN: the last part of its resource path (`instance/i-0abc` -> `i-0abc`),
 * the whole resource field when it has no `/`, empty for no ARN. Found by index, not by splitting:
 * every resource written and read back passes here.
 */
export function ec2ResourceId(arn: string): string {
  let resourceAt = 0;
  for (let field = 0; field < 5; field++) {
    resourceAt = arn.indexOf(':', resourceAt) + 1;
    if (resourceAt === 0) return '';
  }
  return arn.slice(Math.max(resourceAt, arn.lastIndexOf('/') + 1));
}

class Ec2Tagger implements Tagger {
  readonly #api: Ec2Api;

  constructor(
    private readonly context: ApiContext,
    region: string,
  ) {
    this.#api = new Ec2Api(context, region);
  }

  get writes() {
    return this.#api.writes;
  }

  get reads() {
    return this.#api.reads;
  }

  /**
   * EC2 makes a write for every resource or for none, and names in its error the IDs it did not
   * know: those get the failure and the rest goes again; a refusal that names none is split in
   * halves until it does, or until it is one resource's. A failure every resource shares, or an access
   * refusal (the caller splits it by submission), is thrown.
   */
  async write(call: Write, arns: string[], grant: Grant | undefined): Promise<Map<string, WriteOutcome>> {
    try {
      await this.#send(call, arns, grant);
      return new Map(arns.map((arn) => [arn, undefined]));
    } catch (error) {
      const failure = awsFailureOf(error);
      const kind = failureKind(failure);
      if (EC2_TAGGER.sharedFailures.has(kind) || kind === 'AccessDenied') throw error;
      const named = namedArns(failure.message, arns);
      if (named.size > 0) {
        const rest = arns.filter((arn) => !named.has(arn));
        const answer = rest.length > 0 ? await this.write(call, rest, undefined) : new Map<string, WriteOutcome>();
        for (const arn of named) answer.set(arn, failure);
        return answer;
      }
      if (arns.length === 1) return new Map([[arns[0]!, failure]]);
      const half = Math.ceil(arns.length / 2);
      const [first, second] = await Promise.all([
        this.write(call, arns.slice(0, half), undefined),
        this.write(call, arns.slice(half), undefined),
      ]);
      return new Map([...first, ...second]);
    }
  }

  #send(call: Write, arns: string[], grant: Grant | undefined) {
    const Resources = arns.map(ec2ResourceId);
    if (call.action === EC2_TAGGER.actions.set) {
      const Tags = Object.entries(call.tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
      return this.#api.createTags({ Resources, Tags }, grant);
    }
    const values = call.values ?? {};
    const Tags = call.keys.map((Key): Tag => {
      const Value = entry(values, Key);
      return Value === undefined ? { Key } : { Key, Value };
    });
    return this.#api.deleteTags({ Resources, Tags }, grant);
  }

  /**
   * DescribeTags by resource ID and key, every page. A resource without those keys is not listed, and
   * EC2 tells nothing of resources that do not exist: every ARN asked for is answered, with the tags
   * found. The keys go as filter values as they are: `*`, `?` and `\` would be patterns there, and
   * Keymaster's keys cannot hold them (AWS's general characters, checked for every layer).
   */
  async read(arns: string[], grant: Grant, keys: readonly string[]): Promise<Map<string, ReadOutcome>> {
    const ids = arns.map(ec2ResourceId);
    const tags = new Map<string, Record<string, string>>(ids.map((id) => [id, {}]));
    const Filters = [
      { Name: 'resource-id', Values: [...tags.keys()] },
      { Name: 'key', Values: [...keys] },
    ];
    const first = firstGrant(grant);
    let NextToken: string | undefined;
    do {
      const page = { Filters, MaxResults: MAX_TAGS_PER_PAGE, ...(NextToken ? { NextToken } : {}) };
      let answer;
      try {
        answer = await retrying(() => this.#api.describeTags(page, first()), this.context.retry, this.context.clock);
      } catch (error) {
        const site = { action: EC2_TAGGER.readAction, accountId: this.#api.accountId, region: this.#api.region };
        throw callError(site, error);
      }
      for (const { ResourceId, Key, Value = '' } of answer.Tags ?? []) {
        const found = ResourceId === undefined ? undefined : tags.get(ResourceId);
        if (found !== undefined && Key !== undefined) setEntry(found, Key, Value);
      }
      NextToken = answer.NextToken;
    } while (NextToken);
    return new Map(arns.map((arn, i) => [arn, { tags: tags.get(ids[i]!)! }]));
  }
}

/** The ARNs whose resource IDs EC2's error message names (`The instance IDs 'i-1, i-2' do not exist`). */
function namedArns(message: string, arns: readonly string[]): Set<string> {
  const words = new Set(message.match(/[\w-]+/g) ?? []);
  return new Set(arns.filter((arn) => words.has(ec2ResourceId(arn))));
}
