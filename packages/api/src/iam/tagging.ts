import { iamPolicy, type IamPolicy, type IamStatement } from './document.js';

/**
 * The AWS services whose resources Keymaster tags, each with its own tagging actions: the Resource
 * Groups Tagging API (tag:TagResources, tag:UntagResources) calls them for every resource, and AWS
 * checks both; EC2's are also what Keymaster calls itself for EC2 resources (its own tagger). CAPA's
 * clusters own EC2 resources and load balancers (Classic and v2 alike are elasticloadbalancing). A
 * service added here is added to every role that tags.
 */
export const TAGGED_SERVICES = {
  ec2: {
    actions: ['ec2:CreateTags', 'ec2:DeleteTags'],
    resource: 'arn:aws:ec2:*:*:*/*',
  },
  elasticloadbalancing: {
    actions: ['elasticloadbalancing:AddTags', 'elasticloadbalancing:RemoveTags'],
    resource: 'arn:aws:elasticloadbalancing:*:*:*',
  },
} as const satisfies Record<string, { actions: readonly string[]; resource: string }>;

/** The Resource Groups Tagging API calls Keymaster makes: discovery, then adding and removing keys. */
const TAGGING_API: IamStatement = {
  Sid: 'ResourceGroupsTaggingApi',
  Effect: 'Allow',
  Action: ['tag:GetResources', 'tag:TagResources', 'tag:UntagResources'],
  // The Tagging API has no resource-level permissions: each service's own action below scopes the writes.
  Resource: '*',
};

/** EC2's tagger reads the tags back with DescribeTags, which has no resource-level permissions. */
const EC2_READS: IamStatement = {
  Sid: 'Ec2TagReads',
  Effect: 'Allow',
  Action: ['ec2:DescribeTags'],
  Resource: '*',
};

/**
 * What a role needs to tag a cluster's resources: the Tagging API, each service's tagging actions,
 * and EC2's read of tags.
 */
export function taggingPolicy(): IamPolicy {
  const services = Object.entries(TAGGED_SERVICES).map(([service, { actions, resource }]): IamStatement => ({
    Sid: `${service.replace(/^./, (letter) => letter.toUpperCase())}Tags`,
    Effect: 'Allow',
    Action: [...actions],
    Resource: resource,
  }));
  return iamPolicy(TAGGING_API, ...services, EC2_READS);
}
