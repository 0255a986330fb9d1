import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeTagsCommand,
  EC2Client,
  type CreateTagsCommandInput,
  type DeleteTagsCommandInput,
  type DescribeTagsCommandInput,
} from '@aws-sdk/client-ec2';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { RegionApi, type ApiContext } from './region-api.js';

/** The budgets EC2's tag calls spend: its mutating and non-mutating buckets. */
export const EC2_FAMILIES = { reads: 'ec2Reads', writes: 'ec2Writes' } as const;

/**
 * EC2's tagging actions in one region: CreateTags and DeleteTags share EC2's mutating bucket,
 * DescribeTags the non-mutating one, as EC2's request throttling counts them.
 */
export class Ec2Api extends RegionApi<EC2Client> {
  constructor(context: ApiContext, region: string) {
    super(context, region, EC2Client, EC2_FAMILIES);
  }

  createTags(input: CreateTagsCommandInput, grant?: Grant) {
    const command = new CreateTagsCommand(input);
    this.limit(command, 'ec2:CreateTags', this.writes, grant);
    return this.client.send(command);
  }

  deleteTags(input: DeleteTagsCommandInput, grant?: Grant) {
    const command = new DeleteTagsCommand(input);
    this.limit(command, 'ec2:DeleteTags', this.writes, grant);
    return this.client.send(command);
  }

  describeTags(input: DescribeTagsCommandInput, grant?: Grant) {
    const command = new DescribeTagsCommand(input);
    this.limit(command, 'ec2:DescribeTags', this.reads, grant);
    return this.client.send(command);
  }
}
