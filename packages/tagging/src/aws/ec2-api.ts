import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeTagsCommand,
  EC2Client,
  type CreateTagsCommandInput,
  type DeleteTagsCommandInput,
  type DescribeTagsCommandInput,
} from '@aws-sdk/client-ec2';
import type { Grant, RateLimiter } from '../rate-limit/rate-limiter.js';
import { limitRequests } from './limit-requests.js';
import type { ApiContext } from './tagging-api.js';

/**
 * EC2's tagging actions in one region, each request let through by the rate limiter of its account,
 * region and family: CreateTags and DeleteTags share EC2's mutating bucket, DescribeTags the
 * non-mutating one, as EC2's request throttling counts them.
 */
export class Ec2Api {
  readonly #client: EC2Client;
  /** The rate limiter of DescribeTags in the account and region. */
  readonly reads: RateLimiter;
  /** The rate limiter of CreateTags and DeleteTags in the account and region. */
  readonly writes: RateLimiter;

  constructor(
    private readonly context: ApiContext,
    readonly region: string,
  ) {
    const { session, limiters } = context;
    this.#client = session.client(EC2Client, region);
    this.reads = limiters.get(session.accountId, region, 'ec2Reads');
    this.writes = limiters.get(session.accountId, region, 'ec2Writes');
  }

  get accountId(): string {
    return this.context.session.accountId;
  }

  createTags(input: CreateTagsCommandInput, grant?: Grant) {
    const command = new CreateTagsCommand(input);
    limitRequests(command, 'ec2:CreateTags', this.writes, grant, this.context.requests);
    return this.#client.send(command);
  }

  deleteTags(input: DeleteTagsCommandInput, grant?: Grant) {
    const command = new DeleteTagsCommand(input);
    limitRequests(command, 'ec2:DeleteTags', this.writes, grant, this.context.requests);
    return this.#client.send(command);
  }

  describeTags(input: DescribeTagsCommandInput, grant?: Grant) {
    const command = new DescribeTagsCommand(input);
    limitRequests(command, 'ec2:DescribeTags', this.reads, grant, this.context.requests);
    return this.#client.send(command);
  }
}
