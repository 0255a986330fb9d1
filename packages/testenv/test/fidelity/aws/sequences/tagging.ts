import {
  GetResourcesCommand,
  TagResourcesCommand,
  UntagResourcesCommand,
  type GetResourcesCommandInput,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { Run } from '../run.js';
import { ACCOUNT, REGION, TENANT_ACCOUNT } from '../sides.js';
import { getAllResources, type Sequence } from './sequence.js';

const arn = (id: string, account = ACCOUNT, region = REGION) => {
  const type = id.startsWith('i-') ? 'instance' : id.startsWith('vol-') ? 'volume' : 'security-group';
  return `arn:aws:ec2:${region}:${account}:${type}/${id}`;
};

const tagResources = (run: Run, step: string, arns: string[], tags: Record<string, string>) =>
  run.call(step, () => run.clients().tagging.send(new TagResourcesCommand({ ResourceARNList: arns, Tags: tags })));

const untagResources = (run: Run, step: string, arns: string[], keys: string[]) =>
  run.call(step, () => run.clients().tagging.send(new UntagResourcesCommand({ ResourceARNList: arns, TagKeys: keys })));

/** One GetResources request, recorded as it is answered (for what a single answer looks like). */
const getResources = (run: Run, step: string, input: GetResourcesCommandInput) =>
  run.call(step, () => run.clients().tagging.send(new GetResourcesCommand(input)));

/** Four instances whose tags the filter sequences query. */
async function filterFixture(run: Run): Promise<void> {
  await run.create('instance', { env: 'prod', team: 'analytics' });
  await run.create('instance', { env: 'dev', team: 'analytics' });
  await run.create('instance', { env: 'test', team: 'billing' });
  await run.create('instance', { team: 'analytics' });
}

/** A sequence that queries the filter fixture once. */
const query = (name: string, input: GetResourcesCommandInput): Sequence => ({
  name,
  run: async (run) => {
    await filterFixture(run);
    await getAllResources(run, 'GetResources', input);
  },
});

/** A sequence that tags one fresh instance once. */
const tagOnce = (name: string, tags: Record<string, string>): Sequence => ({
  name,
  run: async (run) => {
    const id = await run.create('instance', { team: 'analytics' });
    await tagResources(run, 'TagResources', [arn(id)], tags);
    await getAllResources(run, 'GetResources', { ResourceARNList: [arn(id)] });
  },
});

const fiftyTags = (prefix: string) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${prefix}${i}`, 'x']));

export const taggingSequences: Sequence[] = [
  {
    name: 'tagging/get-resources-last-page-token',
    run: async (run) => {
      await run.create('instance', { team: 'analytics' });
      await getResources(run, 'GetResources', {});
    },
  },
  {
    name: 'tagging/get-resources-none-tagged',
    run: async (run) => {
      await run.create('instance');
      await run.create('volume');
      await getAllResources(run, 'GetResources', {});
    },
  },
  query('tagging/get-resources-or-within-a-filter', { TagFilters: [{ Key: 'env', Values: ['prod', 'dev'] }] }),
  query('tagging/get-resources-and-across-filters', {
    TagFilters: [{ Key: 'team', Values: ['analytics'] }, { Key: 'env' }],
  }),
  query('tagging/get-resources-key-without-values', { TagFilters: [{ Key: 'env' }] }),
  query('tagging/get-resources-key-with-empty-values', { TagFilters: [{ Key: 'env', Values: [] }] }),
  query('tagging/get-resources-no-match', { TagFilters: [{ Key: 'nobody' }] }),
  query('tagging/get-resources-too-many-filters', {
    TagFilters: Array.from({ length: 51 }, (_, i) => ({ Key: `key${i}` })),
  }),
  query('tagging/get-resources-too-many-filter-values', {
    TagFilters: [{ Key: 'env', Values: Array.from({ length: 21 }, (_, i) => `v${i}`) }],
  }),
  query('tagging/get-resources-resources-per-page-0', { ResourcesPerPage: 0 }),
  query('tagging/get-resources-resources-per-page-101', { ResourcesPerPage: 101 }),
  query('tagging/get-resources-tags-per-page-99', { TagsPerPage: 99 }),
  {
    name: 'tagging/get-resources-resources-per-page',
    run: async (run) => {
      await run.createMany(25, 'instance', () => ({ 'kubernetes.io/cluster/prod-1': 'owned' }));
      await getAllResources(run, 'GetResources 10 a page', {
        TagFilters: [{ Key: 'kubernetes.io/cluster/prod-1', Values: ['owned'] }],
        ResourcesPerPage: 10,
      });
    },
  },
  {
    // The example of AWS's API reference for TagsPerPage: 22 resources of 10 tags, 100 tags a page.
    name: 'tagging/get-resources-tags-per-page',
    run: async (run) => {
      const tags = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key${i}`, 'x']));
      await run.createMany(22, 'instance', () => tags);
      await getAllResources(run, 'GetResources 100 tags a page', { TagsPerPage: 100 });
    },
  },
  {
    name: 'tagging/get-resources-invalid-pagination-token',
    run: async (run) => {
      await run.create('instance', { team: 'analytics' });
      await getResources(run, 'GetResources', { PaginationToken: 'not-a-token' });
    },
  },
  {
    name: 'tagging/get-resources-type-filters',
    run: async (run) => {
      await run.create('instance', { team: 'a' });
      await run.create('volume', { team: 'a' });
      await run.create('security-group', { team: 'a' });
      await getAllResources(run, 'ec2:instance', { ResourceTypeFilters: ['ec2:instance'] });
      await getAllResources(run, 'ec2:volume and ec2:security-group', {
        ResourceTypeFilters: ['ec2:volume', 'ec2:security-group'],
      });
      await getAllResources(run, 'ec2', { ResourceTypeFilters: ['ec2'] });
      await getAllResources(run, 's3', { ResourceTypeFilters: ['s3'] });
    },
  },
  {
    name: 'tagging/get-resources-arn-list',
    run: async (run) => {
      const [a, , c] = await run.createMany(3, 'instance', (i) => ({ n: String(i) }));
      await getAllResources(run, 'GetResources', { ResourceARNList: [arn(a!), arn(c!)] });
    },
  },
  {
    name: 'tagging/get-resources-arn-list-and-tag-filters',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await getAllResources(run, 'GetResources', { ResourceARNList: [arn(id)], TagFilters: [{ Key: 'team' }] });
    },
  },
  {
    name: 'tagging/get-resources-arn-list-with-resources-per-page',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await getAllResources(run, 'GetResources', { ResourceARNList: [arn(id)], ResourcesPerPage: 100 });
    },
  },
  {
    name: 'tagging/get-resources-arn-list-of-101',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await getAllResources(run, 'GetResources', { ResourceARNList: Array.from({ length: 101 }, () => arn(id)) });
    },
  },
  {
    name: 'tagging/get-resources-previously-tagged',
    run: async (run) => {
      const id = await run.create('instance', { team: 'analytics' });
      await untagResources(run, 'UntagResources of its only tag', [arn(id)], ['team']);
      await getAllResources(run, 'GetResources', {});
    },
  },
  {
    name: 'tagging/tag-resources-three-kinds',
    run: async (run) => {
      const ids = [
        await run.create('instance', { team: 'a' }),
        await run.create('volume', { team: 'a' }),
        await run.create('security-group', { team: 'a' }),
      ];
      await tagResources(
        run,
        'TagResources',
        ids.map((id) => arn(id)),
        { env: 'prod', team: 'analytics' },
      );
      await getAllResources(run, 'GetResources', { TagFilters: [{ Key: 'env' }] });
    },
  },
  tagOnce('tagging/tag-resources-overwrites-a-value', { team: 'billing' }),
  tagOnce('tagging/tag-resources-empty-value', { team: '' }),
  tagOnce('tagging/tag-resources-aws-prefix', { 'aws:team': 'x' }),
  tagOnce('tagging/tag-resources-aws-prefix-upper-case', { 'AWS:team': 'x' }),
  tagOnce('tagging/tag-resources-key-of-128', { ['k'.repeat(128)]: 'x' }),
  tagOnce('tagging/tag-resources-key-of-129', { ['k'.repeat(129)]: 'x' }),
  tagOnce('tagging/tag-resources-value-of-257', { team: 'v'.repeat(257) }),
  tagOnce('tagging/tag-resources-key-characters', { 'team<name>': 'x' }),
  tagOnce('tagging/tag-resources-no-tags', {}),
  tagOnce('tagging/tag-resources-51-tags', { ...fiftyTags('key'), one: 'more' }),
  {
    name: 'tagging/tag-resources-over-50-on-the-resource',
    run: async (run) => {
      const id = await run.create('instance', fiftyTags('key'));
      await tagResources(run, 'TagResources of a 51st tag', [arn(id)], { one: 'more' });
    },
  },
  {
    name: 'tagging/tag-resources-21-arns',
    run: async (run) => {
      const ids = await run.createMany(21, 'instance', () => ({ team: 'a' }));
      await tagResources(
        run,
        'TagResources',
        ids.map((id) => arn(id)),
        { env: 'prod' },
      );
    },
  },
  {
    name: 'tagging/tag-resources-invalid-arn',
    run: async (run) => {
      await tagResources(run, 'TagResources', ['not-an-arn'], { env: 'prod' });
    },
  },
  {
    name: 'tagging/tag-resources-missing-instance',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await tagResources(run, 'TagResources', [arn(id), arn('i-0123456789abcdef0')], { env: 'prod' });
    },
  },
  {
    name: 'tagging/tag-resources-missing-volume',
    run: async (run) => {
      await tagResources(run, 'TagResources', [arn('vol-0123456789abcdef0')], { env: 'prod' });
    },
  },
  {
    name: 'tagging/tag-resources-other-account',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' }, TENANT_ACCOUNT);
      await tagResources(run, 'TagResources', [arn(id, TENANT_ACCOUNT)], { env: 'prod' });
    },
  },
  {
    name: 'tagging/tag-resources-other-region',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await tagResources(run, 'TagResources', [arn(id, ACCOUNT, 'eu-west-1')], { env: 'prod' });
    },
  },
  {
    name: 'tagging/untag-resources',
    run: async (run) => {
      const ids = await run.createMany(3, 'instance', () => ({ team: 'a', env: 'prod', keep: 'me' }));
      await untagResources(
        run,
        'UntagResources',
        ids.map((id) => arn(id)),
        ['team', 'env', 'absent'],
      );
      await getAllResources(run, 'GetResources', {});
    },
  },
  {
    name: 'tagging/untag-resources-aws-prefix',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await untagResources(run, 'UntagResources', [arn(id)], ['aws:cloudformation:stack-name']);
    },
  },
  {
    name: 'tagging/untag-resources-no-keys',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await untagResources(run, 'UntagResources', [arn(id)], []);
    },
  },
  {
    name: 'tagging/untag-resources-51-keys',
    run: async (run) => {
      const id = await run.create('instance', { team: 'a' });
      await untagResources(run, 'UntagResources', [arn(id)], Object.keys({ ...fiftyTags('key'), one: 'more' }));
    },
  },
  {
    name: 'tagging/untag-resources-21-arns',
    run: async (run) => {
      const ids = await run.createMany(21, 'instance', () => ({ team: 'a' }));
      await untagResources(
        run,
        'UntagResources',
        ids.map((id) => arn(id)),
        ['team'],
      );
    },
  },
  {
    name: 'tagging/untag-resources-missing-instance',
    run: async (run) => {
      await untagResources(run, 'UntagResources', [arn('i-0123456789abcdef0')], ['team']);
    },
  },
];
