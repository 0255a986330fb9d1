import {
  GetResourcesCommand,
  TagResourcesCommand,
  UntagResourcesCommand,
  type GetResourcesCommandInput,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { expect } from 'chai';
import { awsClients, MOTO_ACCOUNT, type AwsClients } from './support/clients.js';
import { withMoto } from './support/moto.js';
import { createVolume, ec2Tags, runInstances } from './support/resources.js';

describe('the Resource Groups Tagging API of moto, as Keymaster calls it', () => {
  const holder = withMoto();
  let clients: AwsClients;

  beforeEach(() => {
    clients = awsClients(holder.moto.url);
  });

  /** Every page of a query: the ARNs found, and how many each page held. */
  async function getAll(input: GetResourcesCommandInput): Promise<{ arns: string[]; pages: number[] }> {
    const arns: string[] = [];
    const pages: number[] = [];
    let token: string | undefined;
    do {
      const page = await clients.tagging.send(new GetResourcesCommand({ ...input, PaginationToken: token }));
      pages.push(page.ResourceTagMappingList!.length);
      arns.push(...page.ResourceTagMappingList!.map(({ ResourceARN }) => ResourceARN!));
      token = page.PaginationToken;
    } while (token);
    return { arns: arns.sort(), pages };
  }

  it('TagFilters: AND across keys, OR within one key, a key without values matches any value', async () => {
    const [a, b, c, d] = (await Promise.all([
      runInstances(clients, 1, { env: 'prod', team: 'analytics' }),
      runInstances(clients, 1, { env: 'dev', team: 'analytics' }),
      runInstances(clients, 1, { env: 'test', team: 'billing' }),
      runInstances(clients, 1, { team: 'analytics' }),
    ]).then((lists) => lists.flat())) as [string, string, string, string];

    const found = async (TagFilters: GetResourcesCommandInput['TagFilters']) => (await getAll({ TagFilters })).arns;

    expect(await found([{ Key: 'env', Values: ['prod', 'dev'] }])).to.deep.equal([a, b].sort());
    expect(await found([{ Key: 'env' }])).to.deep.equal([a, b, c].sort());
    expect(await found([{ Key: 'team', Values: ['analytics'] }, { Key: 'env' }])).to.deep.equal([a, b].sort());
    expect(await found([{ Key: 'team', Values: ['analytics'] }])).to.deep.equal([a, b, d].sort());
    expect(await found([{ Key: 'nobody' }])).to.deep.equal([]);
  });

  it('ResourcesPerPage and PaginationToken walk every resource exactly once', async () => {
    const instances = await runInstances(clients, 25, { 'kubernetes.io/cluster/prod-1': 'owned' });

    const { arns, pages } = await getAll({
      TagFilters: [{ Key: 'kubernetes.io/cluster/prod-1', Values: ['owned'] }],
      ResourcesPerPage: 10,
    });

    expect(arns).to.deep.equal([...instances].sort());
    expect(pages).to.deep.equal([10, 10, 5]);
  });

  it('ResourceTypeFilters and ResourceARNList narrow the answer', async () => {
    const [instance] = (await runInstances(clients, 1, { team: 'a' })) as [string];
    const volume = await createVolume(clients, MOTO_ACCOUNT, { team: 'a' });

    expect((await getAll({ ResourceTypeFilters: ['ec2:volume'] })).arns).to.deep.equal([volume]);
    expect((await getAll({ ResourceTypeFilters: ['ec2:instance'] })).arns).to.deep.equal([instance]);
    expect((await getAll({ ResourceTypeFilters: ['ec2'] })).arns).to.deep.equal([instance, volume].sort());
    expect((await getAll({ ResourceARNList: [volume] })).arns).to.deep.equal([volume]);
  });

  it('TagResources and UntagResources on 20 ARNs in one call each', async () => {
    const instances = await runInstances(clients, 20);

    const tagged = await clients.tagging.send(
      new TagResourcesCommand({ ResourceARNList: instances, Tags: { team: 'analytics', env: 'prod' } }),
    );
    const untagged = await clients.tagging.send(
      new UntagResourcesCommand({ ResourceARNList: instances, TagKeys: ['env'] }),
    );

    expect(tagged.FailedResourcesMap).to.deep.equal({});
    expect(untagged.FailedResourcesMap).to.deep.equal({});
    const live = await ec2Tags(clients, instances);
    expect(Object.values(live)).to.deep.equal(instances.map(() => ({ team: 'analytics' })));
  });
});
