import { CreateTagsCommand, DeleteTagsCommand, DescribeTagsCommand, type Filter } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { assumeRole, ec2Client, failureOf } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { CONTROLLER, EXTERNAL_ID, INSTANCE, OWNED, ROLES, VPC } from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'ec2', ExternalId: EXTERNAL_ID };
const INSTANCE_ID = 'i-0123456789abcdef0';
const VPC_ID = 'vpc-0a1b2c3d4e5f60718';

describe('EC2 tagging', () => {
  const context = withEmulator();
  const client = async () => ec2Client(context.emulator.url, await assumeRole(context.emulator.url, CONTROLLER, ADMIN));
  const tagsOf = (arn: string) => context.emulator.world.listResources().find((r) => r.arn === arn)!.tags;

  describe('CreateTags', () => {
    it('sets tags on several resources; a tag without a value gets the empty value', async () => {
      await (
        await client()
      ).send(
        new CreateTagsCommand({
          Resources: [INSTANCE_ID, VPC_ID],
          Tags: [{ Key: 'team', Value: 'b' }, { Key: 'flag' }],
        }),
      );
      expect(tagsOf(INSTANCE)).to.include({ team: 'b', flag: '' });
      expect(tagsOf(VPC)).to.include({ team: 'b', flag: '' });
    });

    it('is all or nothing: an unknown ID fails the call and tags nothing', async () => {
      const error = await failureOf(
        (await client()).send(
          new CreateTagsCommand({
            Resources: [INSTANCE_ID, 'i-00000000000000bad'],
            Tags: [{ Key: 'team', Value: 'b' }],
          }),
        ),
      );
      expect(error.name).to.equal('InvalidInstanceID.NotFound');
      expect(error.message).to.equal("The instance ID 'i-00000000000000bad' does not exist");
      expect(tagsOf(INSTANCE)).to.not.have.property('team');
    });

    it('answers InvalidID for an ID of no known kind', async () => {
      const error = await failureOf(
        (await client()).send(new CreateTagsCommand({ Resources: ['bogus'], Tags: [{ Key: 'a', Value: 'b' }] })),
      );
      expect(error.name).to.equal('InvalidID');
    });

    it('refuses aws: keys and over-long keys with InvalidParameterValue', async () => {
      const ec2 = await client();
      const reserved = await failureOf(
        ec2.send(new CreateTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: 'aws:x', Value: 'y' }] })),
      );
      expect(reserved.name).to.equal('InvalidParameterValue');
      const long = await failureOf(
        ec2.send(new CreateTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: 'k'.repeat(129), Value: 'y' }] })),
      );
      expect(long.message).to.equal('Tag key exceeds the maximum length of 128 characters');
    });

    it('refuses more than 1000 resource IDs', async () => {
      const ids = Array.from({ length: 1001 }, () => INSTANCE_ID);
      const error = await failureOf(
        (await client()).send(new CreateTagsCommand({ Resources: ids, Tags: [{ Key: 'a', Value: 'b' }] })),
      );
      expect(error.name).to.equal('InvalidParameterValue');
    });

    it('answers TagLimitExceeded past 50 user tags', async () => {
      const tags = Array.from({ length: 49 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
      const error = await failureOf(
        (await client()).send(new CreateTagsCommand({ Resources: [INSTANCE_ID], Tags: tags })),
      );
      expect(error.name).to.equal('TagLimitExceeded');
    });

    it('answers UnauthorizedOperation naming the action and resource when the caller may not', async () => {
      const Policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'ec2:CreateTags', Resource: INSTANCE }],
      });
      const session = await assumeRole(context.emulator.url, CONTROLLER, { ...ADMIN, Policy });
      const ec2 = ec2Client(context.emulator.url, session);
      await ec2.send(new CreateTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: 'a', Value: 'b' }] }));
      const error = await failureOf(
        ec2.send(new CreateTagsCommand({ Resources: [VPC_ID], Tags: [{ Key: 'a', Value: 'b' }] })),
      );
      expect(error.name).to.equal('UnauthorizedOperation');
      expect(error.message).to.contain(`is not authorized to perform: ec2:CreateTags on resource: ${VPC}`);
    });

    it('answers DryRunOperation when DryRun is set and the caller may, and changes nothing', async () => {
      const error = await failureOf(
        (await client()).send(
          new CreateTagsCommand({ DryRun: true, Resources: [INSTANCE_ID], Tags: [{ Key: 'a', Value: 'b' }] }),
        ),
      );
      expect(error.name).to.equal('DryRunOperation');
      expect(tagsOf(INSTANCE)).to.not.have.property('a');
    });
  });

  describe('DeleteTags', () => {
    it('deletes a tag given with a value only when the value matches', async () => {
      const ec2 = await client();
      await ec2.send(new DeleteTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: OWNED, Value: 'shared' }] }));
      expect(tagsOf(INSTANCE)).to.have.property(OWNED, 'owned');
      await ec2.send(new DeleteTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: OWNED, Value: 'owned' }] }));
      expect(tagsOf(INSTANCE)).to.not.have.property(OWNED);
    });

    it('deletes a tag given without a value whatever its value', async () => {
      await (await client()).send(new DeleteTagsCommand({ Resources: [INSTANCE_ID], Tags: [{ Key: 'Name' }] }));
      expect(tagsOf(INSTANCE)).to.deep.equal({ [OWNED]: 'owned' });
    });

    it('deletes every user tag, and no aws: tag, when no tags are given', async () => {
      await (await client()).send(new DeleteTagsCommand({ Resources: [VPC_ID] }));
      expect(tagsOf(VPC)).to.deep.equal({ 'aws:cloudformation:stack-name': 'network' });
    });
  });

  describe('DescribeTags', () => {
    const describe = async (Filters?: Filter[], extra: { MaxResults?: number; NextToken?: string } = {}) =>
      (await client()).send(new DescribeTagsCommand({ ...(Filters ? { Filters } : {}), ...extra }));

    it("lists every tag of the caller's EC2 resources in the signed region", async () => {
      const result = await describe();
      expect(result.Tags).to.deep.equal([
        { ResourceId: INSTANCE_ID, ResourceType: 'instance', Key: 'Name', Value: 'prod-1-control-plane' },
        { ResourceId: INSTANCE_ID, ResourceType: 'instance', Key: OWNED, Value: 'owned' },
        { ResourceId: VPC_ID, ResourceType: 'vpc', Key: 'aws:cloudformation:stack-name', Value: 'network' },
        { ResourceId: VPC_ID, ResourceType: 'vpc', Key: OWNED, Value: 'owned' },
      ]);
      expect(result.NextToken).to.equal(undefined);
    });

    it('filters by key, value, resource type and resource ID, with wildcards', async () => {
      const keys = (await describe([{ Name: 'key', Values: ['sigs.k8s.io/*'] }])).Tags!.map((t) => t.ResourceId);
      expect(keys).to.deep.equal([INSTANCE_ID, VPC_ID]);
      const vpcOwned = await describe([
        { Name: 'resource-type', Values: ['vpc'] },
        { Name: 'value', Values: ['own?d'] },
      ]);
      expect(vpcOwned.Tags!.map((t) => t.Key)).to.deep.equal([OWNED]);
      const byId = await describe([{ Name: 'resource-id', Values: [INSTANCE_ID] }]);
      expect(byId.Tags).to.have.length(2);
      const byTag = await describe([{ Name: 'tag:Name', Values: ['prod-1-*'] }]);
      expect(byTag.Tags!.map((t) => t.Key)).to.deep.equal(['Name', OWNED]);
    });

    it('by resource IDs lists what a scan would: in order, once, unknown IDs none, with the other filters', async () => {
      const everything = (await describe()).Tags;
      const byIds = await describe([
        { Name: 'resource-id', Values: [VPC_ID, 'i-00000000000000000', INSTANCE_ID, VPC_ID] },
      ]);
      expect(byIds.Tags).to.deep.equal(everything);
      const wildcard = await describe([{ Name: 'resource-id', Values: ['vpc-*'] }]);
      expect(wildcard.Tags!.map((t) => t.ResourceId)).to.deep.equal([VPC_ID, VPC_ID]);
      const both = await describe([
        { Name: 'resource-id', Values: [INSTANCE_ID] },
        { Name: 'resource-id', Values: [VPC_ID] },
      ]);
      expect(both.Tags).to.deep.equal([]);
      const owned = await describe([
        { Name: 'resource-id', Values: [VPC_ID, INSTANCE_ID] },
        { Name: 'key', Values: [OWNED] },
      ]);
      expect(owned.Tags!.map((t) => t.ResourceId)).to.deep.equal([INSTANCE_ID, VPC_ID]);
    });

    it('pages with MaxResults and NextToken', async () => {
      const first = await describe(undefined, { MaxResults: 5 });
      expect(first.Tags).to.have.length(4);
      const ec2 = await client();
      await ec2.send(
        new CreateTagsCommand({ Resources: [INSTANCE_ID], Tags: [1, 2, 3].map((i) => ({ Key: `k${i}`, Value: 'v' })) }),
      );
      const page1 = await ec2.send(new DescribeTagsCommand({ MaxResults: 5 }));
      const page2 = await ec2.send(new DescribeTagsCommand({ MaxResults: 5, NextToken: page1.NextToken! }));
      expect([page1.Tags!.length, page2.Tags!.length, page2.NextToken]).to.deep.equal([5, 2, undefined]);
    });

    it('refuses an unknown filter', async () => {
      const error = await failureOf(describe([{ Name: 'colour', Values: ['blue'] }]));
      expect(error.name).to.equal('InvalidParameterValue');
    });
  });
});
