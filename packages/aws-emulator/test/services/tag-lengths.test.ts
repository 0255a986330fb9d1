import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import {
  GetResourcesCommand,
  GetTagValuesCommand,
  TagResourcesCommand,
  UntagResourcesCommand,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { expect } from 'chai';
import type { World } from '../../src/index.js';
import { assumeRole, ec2Client, failureOf, taggingClient } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { CONTROLLER, EXTERNAL_ID, INSTANCE, ROLES, testWorld } from '../support/world.js';

// AWS counts characters (code points): a letter outside the Basic Multilingual Plane is one character,
// though it takes two UTF-16 units in JavaScript.
const ASTRAL = '\u{1D49C}';
const KEY = ASTRAL.repeat(128);
const VALUE = ASTRAL.repeat(256);
const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'lengths', ExternalId: EXTERNAL_ID };

/** The test world, with the longest key and value on the instance. */
function worldWithLongTag(): World {
  const world = testWorld();
  const [account, ...others] = world.accounts;
  const resources = account!.resources!.map((resource) =>
    resource.arn === INSTANCE ? { ...resource, tags: { ...resource.tags, [KEY]: VALUE } } : resource,
  );
  return { accounts: [{ ...account!, resources }, ...others] };
}

describe('tag lengths, counted in characters as AWS counts them', () => {
  const context = withEmulator(worldWithLongTag);
  const session = () => assumeRole(context.emulator.url, CONTROLLER, ADMIN);
  const tagsOf = (arn: string) => context.emulator.world.listResources().find((r) => r.arn === arn)!.tags;

  it('loads a world whose tags have 128-character keys and 256-character values outside the BMP', async () => {
    const tagging = taggingClient(context.emulator.url, await session());
    const values = await tagging.send(new GetTagValuesCommand({ Key: KEY }));
    expect(values.TagValues).to.deep.equal([VALUE]);
    const found = await tagging.send(new GetResourcesCommand({ TagFilters: [{ Key: KEY, Values: [VALUE] }] }));
    expect(found.ResourceTagMappingList!.map(({ ResourceARN }) => ResourceARN)).to.deep.equal([INSTANCE]);
  });

  it('TagResources and UntagResources take them, and refuse one character more', async () => {
    const tagging = taggingClient(context.emulator.url, await session());
    const other = `${ASTRAL}b`.repeat(64);
    const tagged = await tagging.send(
      new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { [other]: VALUE } }),
    );
    expect(tagged.FailedResourcesMap).to.deep.equal({});
    expect(tagsOf(INSTANCE)).to.include({ [other]: VALUE });
    const untagged = await tagging.send(new UntagResourcesCommand({ ResourceARNList: [INSTANCE], TagKeys: [KEY] }));
    expect(untagged.FailedResourcesMap).to.deep.equal({});
    expect(tagsOf(INSTANCE)).to.not.have.property(KEY);

    for (const tags of [{ [`${KEY}x`]: 'v' }, { k: `${VALUE}x` }]) {
      const refused = await failureOf(
        tagging.send(new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: tags })),
      );
      expect(refused.name).to.equal('InvalidParameterException');
    }
  });

  it('EC2 CreateTags takes them, and refuses one character more', async () => {
    const ec2 = ec2Client(context.emulator.url, await session());
    const instanceId = INSTANCE.split('/')[1]!;
    const other = `${ASTRAL}c`.repeat(64);
    await ec2.send(new CreateTagsCommand({ Resources: [instanceId], Tags: [{ Key: other, Value: VALUE }] }));
    expect(tagsOf(INSTANCE)).to.include({ [other]: VALUE });
    const long = await failureOf(
      ec2.send(new CreateTagsCommand({ Resources: [instanceId], Tags: [{ Key: `${KEY}x`, Value: 'v' }] })),
    );
    expect(long.message).to.equal('Tag key exceeds the maximum length of 128 characters');
  });

  it('STS session tags take them', async () => {
    const tagged = await assumeRole(context.emulator.url, CONTROLLER, { ...ADMIN, Tags: [{ Key: KEY, Value: VALUE }] });
    expect(tagged.accessKeyId).to.match(/^ASIA/);
  });
});
