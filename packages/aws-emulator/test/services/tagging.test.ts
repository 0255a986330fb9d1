import {
  GetResourcesCommand,
  GetTagKeysCommand,
  GetTagValuesCommand,
  TagResourcesCommand,
  UntagResourcesCommand,
  paginateGetResources,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { expect } from 'chai';
import type { World } from '../../src/index.js';
import { assumeRole, failureOf, taggingClient, type Keys } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import {
  ACCOUNT,
  CONTROLLER,
  EAST_INSTANCE,
  EXTERNAL_ID,
  INSTANCE,
  OWNED,
  REGION,
  ROLES,
  STRANGER,
  SUBNET,
  VPC,
  testWorld,
} from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'tagging', ExternalId: EXTERNAL_ID };

/** The test world plus 230 tagged instances, for pagination. */
function crowdedWorld(): World {
  const world = testWorld();
  const resources = Array.from({ length: 230 }, (_, i) => ({
    arn: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/i-${i.toString(16).padStart(17, '0')}`,
    tags: { fleet: 'crowd', index: String(i) },
  }));
  return {
    accounts: [
      { ...world.accounts[0]!, resources: [...world.accounts[0]!.resources!, ...resources] },
      world.accounts[1]!,
    ],
  };
}

describe('Resource Groups Tagging API', () => {
  const context = withEmulator();
  const client = async () =>
    taggingClient(context.emulator.url, await assumeRole(context.emulator.url, CONTROLLER, ADMIN));

  describe('GetResources', () => {
    it("lists the caller's tagged resources in the signed region only, with all their tags", async () => {
      const page = await (await client()).send(new GetResourcesCommand({}));
      expect(page.ResourceTagMappingList!.map((r) => r.ResourceARN)).to.deep.equal([INSTANCE, VPC]);
      expect(page.ResourceTagMappingList![1]!.Tags).to.deep.include({
        Key: 'aws:cloudformation:stack-name',
        Value: 'network',
      });
      expect(page.PaginationToken).to.equal('');
    });

    it('never lists a resource that was never tagged, but lists one whose tags were all removed', async () => {
      const tagging = await client();
      const arns = async () =>
        (await tagging.send(new GetResourcesCommand({}))).ResourceTagMappingList!.map((r) => r.ResourceARN);
      expect(await arns()).to.not.include(SUBNET);
      await tagging.send(new TagResourcesCommand({ ResourceARNList: [SUBNET], Tags: { tier: 'private' } }));
      await tagging.send(new UntagResourcesCommand({ ResourceARNList: [SUBNET], TagKeys: ['tier'] }));
      const listed = (await tagging.send(new GetResourcesCommand({ ResourceARNList: [SUBNET] })))
        .ResourceTagMappingList!;
      expect(listed).to.deep.equal([{ ResourceARN: SUBNET, Tags: [] }]);
    });

    it('ANDs tag filters and ORs the values of one filter', async () => {
      const tagging = await client();
      const arns = async (TagFilters: { Key: string; Values?: string[] }[]) =>
        (await tagging.send(new GetResourcesCommand({ TagFilters }))).ResourceTagMappingList!.map((r) => r.ResourceARN);
      expect(await arns([{ Key: OWNED, Values: ['owned'] }])).to.deep.equal([INSTANCE, VPC]);
      expect(await arns([{ Key: OWNED }, { Key: 'Name' }])).to.deep.equal([INSTANCE]);
      expect(await arns([{ Key: 'Name', Values: ['other', 'prod-1-control-plane'] }])).to.deep.equal([INSTANCE]);
      expect(await arns([{ Key: OWNED, Values: ['shared'] }])).to.deep.equal([]);
    });

    it('filters by service and resource type', async () => {
      const tagging = await client();
      const page = await tagging.send(new GetResourcesCommand({ ResourceTypeFilters: ['ec2:vpc'] }));
      expect(page.ResourceTagMappingList!.map((r) => r.ResourceARN)).to.deep.equal([VPC]);
      const all = await tagging.send(new GetResourcesCommand({ ResourceTypeFilters: ['ec2'] }));
      expect(all.ResourceTagMappingList).to.have.length(2);
    });

    it('sees another region when the call is signed for it', async () => {
      const session = await assumeRole(context.emulator.url, CONTROLLER, ADMIN);
      const page = await taggingClient(context.emulator.url, session, 'us-east-1').send(new GetResourcesCommand({}));
      expect(page.ResourceTagMappingList!.map((r) => r.ResourceARN)).to.deep.equal([EAST_INSTANCE]);
    });

    it('refuses more than 50 tag filters, 20 values in one filter, or pages over 100', async () => {
      const tagging = await client();
      const filters = Array.from({ length: 51 }, (_, i) => ({ Key: `k${i}` }));
      const tooMany = await failureOf(tagging.send(new GetResourcesCommand({ TagFilters: filters })));
      expect(tooMany.name).to.equal('InvalidParameterException');
      const values = Array.from({ length: 21 }, (_, i) => `v${i}`);
      const tooManyValues = await failureOf(
        tagging.send(new GetResourcesCommand({ TagFilters: [{ Key: 'k', Values: values }] })),
      );
      expect(tooManyValues.message).to.contain('Member must have length less than or equal to 20');
      const bigPage = await failureOf(tagging.send(new GetResourcesCommand({ ResourcesPerPage: 101 })));
      expect(bigPage.name).to.equal('InvalidParameterException');
      // The filters are shown as AWS shows structures, not as JavaScript prints objects.
      expect(tooMany.message).to.contain("Value '[{Key=k0, Values=[]}, {Key=k1, Values=[]}, ");
    });

    it('answers a list of ARNs in one page, and refuses it with ResourcesPerPage, TagsPerPage or a token', async () => {
      const tagging = await client();
      const listed = await tagging.send(new GetResourcesCommand({ ResourceARNList: [INSTANCE, VPC] }));
      expect(listed.ResourceTagMappingList!.map((r) => r.ResourceARN)).to.deep.equal([INSTANCE, VPC]);
      expect(listed.PaginationToken).to.equal('');
      for (const paging of [{ ResourcesPerPage: 100 }, { TagsPerPage: 100 }, { PaginationToken: 'MTA6eA' }]) {
        const error = await failureOf(
          tagging.send(new GetResourcesCommand({ ResourceARNList: [INSTANCE], ...paging })),
        );
        expect(error.name, JSON.stringify(paging)).to.equal('InvalidParameterException');
        expect(error.message).to.equal(
          'ResourceARNList cannot be combined with ResourcesPerPage, TagsPerPage or PaginationToken.',
        );
      }
    });

    it("answers a list of ARNs in ARN order, once each, and only with the caller's resources in the signed region", async () => {
      const arns = async (keys: Keys, ResourceARNList: string[]) =>
        (
          await taggingClient(context.emulator.url, keys).send(new GetResourcesCommand({ ResourceARNList }))
        ).ResourceTagMappingList!.map((r) => r.ResourceARN);
      const session = await assumeRole(context.emulator.url, CONTROLLER, ADMIN);
      expect(await arns(session, [VPC, EAST_INSTANCE, SUBNET, INSTANCE, VPC])).to.deep.equal([INSTANCE, VPC]);
      expect(await arns(STRANGER, [INSTANCE, VPC])).to.deep.equal([]);
    });

    describe('in a crowded account', () => {
      const crowded = withEmulator(crowdedWorld);

      it('pages at most 100 resources, and the SDK paginator reads every page', async () => {
        const session = await assumeRole(crowded.emulator.url, CONTROLLER, ADMIN);
        const tagging = taggingClient(crowded.emulator.url, session);
        const sizes: number[] = [];
        const arns = new Set<string>();
        for await (const page of paginateGetResources({ client: tagging }, { TagFilters: [{ Key: 'fleet' }] })) {
          sizes.push(page.ResourceTagMappingList!.length);
          for (const mapping of page.ResourceTagMappingList!) arns.add(mapping.ResourceARN!);
        }
        expect(sizes).to.deep.equal([100, 100, 30]);
        expect(arns.size).to.equal(230);
      });

      it("ends a page before the resource that would take it past TagsPerPage, as AWS's example says", async () => {
        const session = await assumeRole(crowded.emulator.url, CONTROLLER, ADMIN);
        const tagging = taggingClient(crowded.emulator.url, session);
        // 230 resources of 2 tags at 100 tags a page: 50 a page. A resource without tags would count as one.
        const sizes: number[] = [];
        const query = { TagFilters: [{ Key: 'fleet' }], TagsPerPage: 100 };
        for await (const page of paginateGetResources({ client: tagging }, query)) {
          sizes.push(page.ResourceTagMappingList!.length);
        }
        expect(sizes).to.deep.equal([50, 50, 50, 50, 30]);
        const mixed = await tagging.send(new GetResourcesCommand({ TagsPerPage: 101, ResourcesPerPage: 3 }));
        expect(mixed.ResourceTagMappingList).to.have.length(3);
      });

      it('refuses a pagination token used with other filters', async () => {
        const session = await assumeRole(crowded.emulator.url, CONTROLLER, ADMIN);
        const tagging = taggingClient(crowded.emulator.url, session);
        const first = await tagging.send(new GetResourcesCommand({ TagFilters: [{ Key: 'fleet' }] }));
        const error = await failureOf(
          tagging.send(
            new GetResourcesCommand({ TagFilters: [{ Key: 'index' }], PaginationToken: first.PaginationToken }),
          ),
        );
        expect(error.name).to.equal('InvalidParameterException');
      });
    });
  });

  describe('TagResources', () => {
    it('tags resources and reports per-ARN failures without failing the call', async () => {
      const tagging = await client();
      const missing = `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/i-0000000000000dead`;
      const result = await tagging.send(
        new TagResourcesCommand({ ResourceARNList: [INSTANCE, missing, EAST_INSTANCE], Tags: { team: 'b' } }),
      );
      expect(Object.keys(result.FailedResourcesMap!)).to.deep.equal([missing, EAST_INSTANCE]);
      expect(result.FailedResourcesMap![missing]).to.deep.equal({
        StatusCode: 400,
        ErrorCode: 'InvalidInstanceID.NotFound',
        ErrorMessage: "The instance ID 'i-0000000000000dead' does not exist",
      });
      expect(result.FailedResourcesMap![EAST_INSTANCE]!.ErrorCode).to.equal('InvalidParameterException');
      const tags = Object.fromEntries(context.emulator.world.listResources().map((r) => [r.arn, r.tags]));
      expect(tags[INSTANCE]).to.include({ team: 'b' });
      expect(tags[EAST_INSTANCE]).to.not.have.property('team');
    });

    it('fails a resource whose service tagging permission the caller lacks', async () => {
      const Policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'tag:*', Resource: '*' },
          { Effect: 'Allow', Action: 'ec2:CreateTags', Resource: INSTANCE },
        ],
      });
      const session = await assumeRole(context.emulator.url, CONTROLLER, { ...ADMIN, Policy });
      const result = await taggingClient(context.emulator.url, session).send(
        new TagResourcesCommand({ ResourceARNList: [INSTANCE, VPC], Tags: { team: 'b' } }),
      );
      expect(Object.keys(result.FailedResourcesMap!)).to.deep.equal([VPC]);
      expect(result.FailedResourcesMap![VPC]).to.deep.include({ StatusCode: 403, ErrorCode: 'AccessDeniedException' });
      expect(result.FailedResourcesMap![VPC]!.ErrorMessage).to.contain(`ec2:CreateTags on resource: ${VPC}`);
    });

    it('fails a resource that would pass 50 user tags (aws: tags do not count)', async () => {
      const tagging = await client();
      const fifty = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`key-${i}`, 'v']));
      const ok = await tagging.send(new TagResourcesCommand({ ResourceARNList: [VPC], Tags: fifty }));
      expect(ok.FailedResourcesMap).to.deep.equal({});
      const result = await tagging.send(
        new TagResourcesCommand({ ResourceARNList: [VPC], Tags: { one: '1', two: '2' } }),
      );
      expect(result.FailedResourcesMap![VPC]!.ErrorCode).to.equal('TagLimitExceeded');
    });

    it('refuses more than 20 ARNs, more than 50 tags, and aws: keys', async () => {
      const tagging = await client();
      const arns = Array.from({ length: 21 }, () => INSTANCE);
      expect(
        (await failureOf(tagging.send(new TagResourcesCommand({ ResourceARNList: arns, Tags: { a: 'b' } })))).name,
      ).to.equal('InvalidParameterException');
      const tags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      const tooMany = await failureOf(
        tagging.send(new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: tags })),
      );
      expect(tooMany.message).to.contain(
        "at 'tags' failed to satisfy constraint: Member must have length less than or equal to 50",
      );
      expect(tooMany.message).to.contain("Value '{k0=v, k1=v, k2=v, ");
      const reserved = await failureOf(
        tagging.send(new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { 'AWS:x': 'y' } })),
      );
      expect(reserved.name).to.equal('InvalidParameterException');
    });

    it("takes any characters for EC2, whose tags allow them, and fails other services' resources with them", async () => {
      const tagging = await client();
      const balancer = `arn:aws:elasticloadbalancing:${REGION}:${ACCOUNT}:loadbalancer/app/ingress/0123456789abcdef`;
      context.emulator.world.putResources({ arn: balancer, tags: { [OWNED]: 'owned' } });
      const result = await tagging.send(
        new TagResourcesCommand({ ResourceARNList: [INSTANCE, balancer], Tags: { 'team<name>': 'a;b' } }),
      );
      expect(Object.keys(result.FailedResourcesMap!)).to.deep.equal([balancer]);
      expect(result.FailedResourcesMap![balancer]).to.deep.equal({
        StatusCode: 400,
        ErrorCode: 'InvalidParameterException',
        ErrorMessage:
          'elasticloadbalancing refuses the tags: tag "team<name>" may hold only letters, digits, spaces and + - = . _ : / @',
      });
      const tags = Object.fromEntries(context.emulator.world.listResources().map((r) => [r.arn, r.tags]));
      expect(tags[INSTANCE]).to.include({ 'team<name>': 'a;b' });
    });

    it('refuses a caller without tag:TagResources with AccessDeniedException', async () => {
      const session = await assumeRole(context.emulator.url, CONTROLLER, {
        RoleArn: ROLES.longSessions,
        RoleSessionName: 'reader',
      });
      const error = await failureOf(
        taggingClient(context.emulator.url, session).send(
          new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { a: 'b' } }),
        ),
      );
      expect(error.name).to.equal('AccessDeniedException');
      expect(error.message).to.equal(
        `User: arn:aws:sts::${ACCOUNT}:assumed-role/long-sessions/reader is not authorized to perform: tag:TagResources because no identity-based policy allows the tag:TagResources action`,
      );
    });
  });

  describe('UntagResources', () => {
    it('removes the keys and leaves the other tags', async () => {
      const tagging = await client();
      const result = await tagging.send(
        new UntagResourcesCommand({ ResourceARNList: [INSTANCE], TagKeys: ['Name', 'absent'] }),
      );
      expect(result.FailedResourcesMap).to.deep.equal({});
      const instance = context.emulator.world.listResources().find((r) => r.arn === INSTANCE)!;
      expect(instance.tags).to.deep.equal({ [OWNED]: 'owned' });
    });
  });

  describe('GetTagKeys and GetTagValues', () => {
    it('list the distinct keys, and the distinct values of one key, in the signed region', async () => {
      const tagging = await client();
      const keys = await tagging.send(new GetTagKeysCommand({}));
      expect(keys.TagKeys).to.deep.equal(['Name', 'aws:cloudformation:stack-name', OWNED]);
      const values = await tagging.send(new GetTagValuesCommand({ Key: OWNED }));
      expect(values.TagValues).to.deep.equal(['owned']);
      expect(values.PaginationToken).to.equal('');
    });
  });
});
