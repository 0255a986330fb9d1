import { CreateTagsCommand, DeleteTagsCommand, DescribeTagsCommand, type Filter } from '@aws-sdk/client-ec2';
import { GetResourcesCommand, TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { expect } from 'chai';
import { awsClients, MOTO_ACCOUNT, type AwsClients } from './support/clients.js';
import { withMoto } from './support/moto.js';
import { createSecurityGroup, createVolume, ec2Tags, resourceId, runInstances } from './support/resources.js';

describe('EC2 tagging on moto, and how it agrees with the tagging API', () => {
  const holder = withMoto();
  let clients: AwsClients;
  let instance: string;
  let volume: string;
  let group: string;

  beforeEach(async () => {
    clients = awsClients(holder.moto.url);
    [instance] = (await runInstances(clients, 1)) as [string];
    volume = await createVolume(clients, MOTO_ACCOUNT);
    group = await createSecurityGroup(clients, 'nodes');
  });

  const ids = () => [instance, volume, group].map(resourceId);

  /** DescribeTags as `resourceId key=value` lines, sorted (EC2 promises no order). */
  async function describe(Filters: Filter[]): Promise<string[]> {
    const { Tags } = await clients.ec2.send(new DescribeTagsCommand({ Filters }));
    return (Tags ?? []).map((tag) => `${tag.ResourceId} ${tag.Key}=${tag.Value}`).sort();
  }

  it('CreateTags tags an instance, a volume and a security group in one call; DescribeTags filters them', async () => {
    await clients.ec2.send(
      new CreateTagsCommand({
        Resources: ids(),
        Tags: [
          { Key: 'team', Value: 'analytics' },
          { Key: 'env', Value: 'prod' },
        ],
      }),
    );
    const [i, v, g] = ids() as [string, string, string];

    expect(await describe([{ Name: 'resource-id', Values: [i, v, g] }])).to.deep.equal(
      [
        `${i} env=prod`,
        `${i} team=analytics`,
        `${v} env=prod`,
        `${v} team=analytics`,
        `${g} env=prod`,
        `${g} team=analytics`,
      ].sort(),
    );
    expect(await describe([{ Name: 'resource-type', Values: ['volume'] }])).to.deep.equal([
      `${v} env=prod`,
      `${v} team=analytics`,
    ]);
    expect(
      await describe([
        { Name: 'key', Values: ['team'] },
        { Name: 'resource-id', Values: [i, g] },
      ]),
    ).to.deep.equal([`${i} team=analytics`, `${g} team=analytics`].sort());
    expect(await describe([{ Name: 'value', Values: ['pro*'] }])).to.deep.equal(
      [`${i} env=prod`, `${v} env=prod`, `${g} env=prod`].sort(),
    );
  });

  it('DeleteTags with a value deletes only on a match; without a value, whatever the value', async () => {
    await clients.ec2.send(
      new CreateTagsCommand({
        Resources: [resourceId(instance)],
        Tags: [
          { Key: 'team', Value: 'analytics' },
          { Key: 'env', Value: 'prod' },
          { Key: 'owner', Value: 'alice' },
        ],
      }),
    );

    await clients.ec2.send(
      new DeleteTagsCommand({
        Resources: [resourceId(instance)],
        Tags: [{ Key: 'team', Value: 'not-analytics' }, { Key: 'env', Value: 'prod' }, { Key: 'owner' }],
      }),
    );

    expect((await ec2Tags(clients, [instance]))[instance]).to.deep.equal({ team: 'analytics' });
  });

  it('what CreateTags writes GetResources reads, and what TagResources writes DescribeTags reads', async () => {
    await clients.ec2.send(
      new CreateTagsCommand({ Resources: [resourceId(instance)], Tags: [{ Key: 'via', Value: 'ec2' }] }),
    );
    const { FailedResourcesMap } = await clients.tagging.send(
      new TagResourcesCommand({ ResourceARNList: [volume, group], Tags: { via: 'tagging' } }),
    );
    expect(FailedResourcesMap).to.deep.equal({});

    const { ResourceTagMappingList } = await clients.tagging.send(
      new GetResourcesCommand({ TagFilters: [{ Key: 'via' }] }),
    );
    expect(
      ResourceTagMappingList!.map(({ ResourceARN, Tags }) => `${ResourceARN} ${JSON.stringify(Tags)}`).sort(),
    ).to.deep.equal(
      [
        `${instance} [{"Key":"via","Value":"ec2"}]`,
        `${volume} [{"Key":"via","Value":"tagging"}]`,
        `${group} [{"Key":"via","Value":"tagging"}]`,
      ].sort(),
    );
    expect(await ec2Tags(clients, [volume, group])).to.deep.equal({
      [volume]: { via: 'tagging' },
      [group]: { via: 'tagging' },
    });
  });

  // (moto lets CreateTags through for an instance ID that does not exist: docs/testenv.md.)
  it('CreateTags naming a volume that does not exist fails with InvalidVolume.NotFound and tags nothing', async () => {
    const missing = 'vol-0123456789abcdef0';

    const error = await clients.ec2
      .send(new CreateTagsCommand({ Resources: [resourceId(instance), missing], Tags: [{ Key: 'team', Value: 'x' }] }))
      .then(
        () => expect.fail('CreateTags succeeded'),
        (failure: unknown) => failure as Error & { $metadata: { httpStatusCode?: number } },
      );

    expect(error.name).to.equal('InvalidVolume.NotFound');
    expect(error.message).to.include(missing);
    expect(error.$metadata.httpStatusCode).to.equal(400);
    expect((await ec2Tags(clients, [instance]))[instance]).to.deep.equal({});
  });
});
