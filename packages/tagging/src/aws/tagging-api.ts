import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  TagResourcesCommand,
  UntagResourcesCommand,
  type GetResourcesCommandInput,
  type TagResourcesCommandInput,
  type UntagResourcesCommandInput,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { Grant } from '../rate-limit/rate-limiter.js';
import { RegionApi, type ApiContext } from './region-api.js';

/** The budgets the Resource Groups Tagging API's calls spend: its read and write quotas. */
export const TAGGING_API_FAMILIES = { reads: 'taggingReads', writes: 'taggingWrites' } as const;

/** The Resource Groups Tagging API in one region: GetResources reads, TagResources and UntagResources write. */
export class TaggingApi extends RegionApi<ResourceGroupsTaggingAPIClient> {
  constructor(context: ApiContext, region: string) {
    super(context, region, ResourceGroupsTaggingAPIClient, TAGGING_API_FAMILIES);
  }

  getResources(input: GetResourcesCommandInput, grant?: Grant) {
    const command = new GetResourcesCommand(input);
    this.limit(command, 'tag:GetResources', this.reads, grant);
    return this.client.send(command);
  }

  tagResources(input: TagResourcesCommandInput, grant?: Grant) {
    const command = new TagResourcesCommand(input);
    this.limit(command, 'tag:TagResources', this.writes, grant);
    return this.client.send(command);
  }

  untagResources(input: UntagResourcesCommandInput, grant?: Grant) {
    const command = new UntagResourcesCommand(input);
    this.limit(command, 'tag:UntagResources', this.writes, grant);
    return this.client.send(command);
  }
}
