import {
  CreateSecurityGroupCommand,
  CreateVolumeCommand,
  DescribeSubnetsCommand,
  DescribeTagsCommand,
  RunInstancesCommand,
  type TagSpecification,
} from '@aws-sdk/client-ec2';
import {
  CreateLoadBalancerCommand,
  DescribeTagsCommand as DescribeLoadBalancerTagsCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { CreateAccessKeyCommand, CreateUserCommand } from '@aws-sdk/client-iam';
import type { AwsClients, Keys } from './clients.js';

/** An AMI moto knows in every region. */
const IMAGE_ID = 'ami-12c6146b';

type Tags = Record<string, string>;

const tagList = (tags: Tags) => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));

function specification(type: TagSpecification['ResourceType'], tags: Tags): TagSpecification[] {
  return Object.keys(tags).length === 0 ? [] : [{ ResourceType: type, Tags: tagList(tags) }];
}

/** An IAM user with an access key, made through moto's IAM API. */
export async function createUser(clients: AwsClients, name: string): Promise<Keys & { arn: string }> {
  const { User } = await clients.iam.send(new CreateUserCommand({ UserName: name }));
  const { AccessKey } = await clients.iam.send(new CreateAccessKeyCommand({ UserName: name }));
  return { accessKeyId: AccessKey!.AccessKeyId!, secretAccessKey: AccessKey!.SecretAccessKey!, arn: User!.Arn! };
}

/**
 * `count` instances made by RunInstances (one call), tagged at creation with `tags`, or by TagSpecifications
 * given as they are (such as `tagSpecifications` of @keymaster/tagging makes); their ARNs in launch order.
 */
export async function runInstances(
  clients: AwsClients,
  count: number,
  tags: Tags | TagSpecification[] = {},
): Promise<string[]> {
  const TagSpecifications = Array.isArray(tags) ? tags : specification('instance', tags);
  const reservation = await clients.ec2.send(
    new RunInstancesCommand({ ImageId: IMAGE_ID, MinCount: count, MaxCount: count, TagSpecifications }),
  );
  const region = await clients.ec2.config.region();
  return reservation.Instances!.map(
    ({ InstanceId }) => `arn:aws:ec2:${region}:${reservation.OwnerId}:instance/${InstanceId}`,
  );
}

/** A volume made by CreateVolume, tagged at creation; its ARN. */
export async function createVolume(clients: AwsClients, account: string, tags: Tags = {}): Promise<string> {
  const region = await clients.ec2.config.region();
  const volume = await clients.ec2.send(
    new CreateVolumeCommand({
      AvailabilityZone: `${region}a`,
      Size: 8,
      TagSpecifications: specification('volume', tags),
    }),
  );
  return `arn:aws:ec2:${region}:${account}:volume/${volume.VolumeId}`;
}

/** A security group of the default VPC made by CreateSecurityGroup, tagged at creation; its ARN. */
export async function createSecurityGroup(clients: AwsClients, name: string, tags: Tags = {}): Promise<string> {
  const group = await clients.ec2.send(
    new CreateSecurityGroupCommand({
      GroupName: name,
      Description: `${name} (moto suite)`,
      TagSpecifications: specification('security-group', tags),
    }),
  );
  return group.SecurityGroupArn!;
}

/** An application load balancer in two subnets of the default VPC, tagged at creation; its ARN. */
export async function createLoadBalancer(clients: AwsClients, name: string, tags: Tags = {}): Promise<string> {
  const { Subnets } = await clients.ec2.send(new DescribeSubnetsCommand({}));
  const { LoadBalancers } = await clients.elb.send(
    new CreateLoadBalancerCommand({
      Name: name,
      Subnets: Subnets!.slice(0, 2).map(({ SubnetId }) => SubnetId!),
      Tags: tagList(tags),
    }),
  );
  return LoadBalancers![0]!.LoadBalancerArn!;
}

/** The last part of an ARN: an EC2 resource ID such as `i-0123...`. */
export const resourceId = (arn: string): string => arn.slice(arn.lastIndexOf('/') + 1);

/** The tags of EC2 resources as EC2's own DescribeTags reports them, by ARN. */
export async function ec2Tags(clients: AwsClients, arns: readonly string[]): Promise<Record<string, Tags>> {
  const { Tags } = await clients.ec2.send(
    new DescribeTagsCommand({ Filters: [{ Name: 'resource-id', Values: arns.map(resourceId) }] }),
  );
  return Object.fromEntries(
    arns.map((arn) => [
      arn,
      Object.fromEntries(
        (Tags ?? []).filter((tag) => tag.ResourceId === resourceId(arn)).map((tag) => [tag.Key!, tag.Value!]),
      ),
    ]),
  );
}

/** The tags of a load balancer as ELBv2's own DescribeTags reports them. */
export async function loadBalancerTags(clients: AwsClients, arn: string): Promise<Tags> {
  const { TagDescriptions } = await clients.elb.send(new DescribeLoadBalancerTagsCommand({ ResourceArns: [arn] }));
  return Object.fromEntries((TagDescriptions?.[0]?.Tags ?? []).map((tag) => [tag.Key!, tag.Value!]));
}
