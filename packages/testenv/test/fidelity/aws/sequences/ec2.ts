import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeTagsCommand,
  type DescribeTagsCommandInput,
  type Filter,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { Run } from '../run.js';
import { getAllResources, type Sequence } from './sequence.js';

const createTags = (run: Run, step: string, ids: string[], tags: Tag[], dryRun?: boolean) =>
  run.call(step, () =>
    run.clients().ec2.send(new CreateTagsCommand({ Resources: ids, Tags: tags, ...(dryRun ? { DryRun: true } : {}) })),
  );

const deleteTags = (run: Run, step: string, ids: string[], tags?: Tag[]) =>
  run.call(step, () =>
    run.clients().ec2.send(new DeleteTagsCommand({ Resources: ids, ...(tags ? { Tags: tags } : {}) })),
  );

const describeTags = (run: Run, step: string, input: DescribeTagsCommandInput) =>
  run.call(step, () => run.clients().ec2.send(new DescribeTagsCommand(input)));

/** The tags of these resources, as DescribeTags lists them. */
const tagsOf = (run: Run, ids: string[]) =>
  describeTags(run, 'DescribeTags of the resources', { Filters: [{ Name: 'resource-id', Values: ids }] });

/** An instance, a volume and a security group, tagged for the DescribeTags sequences. */
async function describeFixture(run: Run): Promise<void> {
  await run.create('instance', { team: 'analytics', env: 'prod' });
  await run.create('volume', { team: 'billing', env: 'prod' });
  await run.create('security-group', { team: 'analytics' });
}

const describeOnce = (name: string, Filters: Filter[]): Sequence => ({
  name,
  run: async (run) => {
    await describeFixture(run);
    await describeTags(run, 'DescribeTags', { Filters });
  },
});

/** A sequence that tags one fresh instance once with CreateTags, then lists its tags. */
const createOnce = (name: string, tags: Tag[]): Sequence => ({
  name,
  run: async (run) => {
    const id = await run.create('instance');
    await createTags(run, 'CreateTags', [id], tags);
    await tagsOf(run, [id]);
  },
});

const tags = (count: number, prefix = 'key') =>
  Array.from({ length: count }, (_, i) => ({ Key: `${prefix}${i}`, Value: 'x' }));

export const ec2Sequences: Sequence[] = [
  {
    name: 'ec2/create-tags-three-kinds',
    run: async (run) => {
      const ids = [await run.create('instance'), await run.create('volume'), await run.create('security-group')];
      await createTags(run, 'CreateTags', ids, [
        { Key: 'team', Value: 'analytics' },
        { Key: 'env', Value: 'prod' },
      ]);
      await tagsOf(run, ids);
    },
  },
  createOnce('ec2/create-tags-without-value', [{ Key: 'team' }]),
  createOnce('ec2/create-tags-aws-prefix', [{ Key: 'aws:team', Value: 'x' }]),
  createOnce('ec2/create-tags-key-of-129', [{ Key: 'k'.repeat(129), Value: 'x' }]),
  createOnce('ec2/create-tags-value-of-257', [{ Key: 'team', Value: 'v'.repeat(257) }]),
  createOnce('ec2/create-tags-any-characters', [{ Key: 'team<name>;', Value: 'a\tb' }]),
  createOnce('ec2/create-tags-51', tags(51)),
  createOnce('ec2/create-tags-none', []),
  {
    name: 'ec2/create-tags-over-50-on-the-resource',
    run: async (run) => {
      const id = await run.create('instance', Object.fromEntries(tags(50).map((tag) => [tag.Key, tag.Value])));
      await createTags(run, 'CreateTags of a 51st tag', [id], [{ Key: 'one', Value: 'more' }]);
    },
  },
  {
    name: 'ec2/create-tags-missing-instance',
    run: async (run) => {
      const id = await run.create('volume');
      await createTags(run, 'CreateTags', [id, 'i-0123456789abcdef0'], [{ Key: 'team', Value: 'x' }]);
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/create-tags-missing-volume',
    run: async (run) => {
      const id = await run.create('instance');
      await createTags(run, 'CreateTags', [id, 'vol-0123456789abcdef0'], [{ Key: 'team', Value: 'x' }]);
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/create-tags-missing-security-group',
    run: async (run) => {
      await createTags(run, 'CreateTags', ['sg-0123456789abcdef0'], [{ Key: 'team', Value: 'x' }]);
    },
  },
  {
    name: 'ec2/create-tags-malformed-id',
    run: async (run) => {
      await createTags(run, 'CreateTags', ['not-an-id'], [{ Key: 'team', Value: 'x' }]);
    },
  },
  {
    name: 'ec2/create-tags-dry-run',
    run: async (run) => {
      const id = await run.create('instance');
      await createTags(run, 'CreateTags with DryRun', [id], [{ Key: 'team', Value: 'x' }], true);
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/delete-tags-by-value-and-by-key',
    run: async (run) => {
      const id = await run.create('instance', { team: 'analytics', env: 'prod', owner: 'alice', cost: '1' });
      await deleteTags(
        run,
        'DeleteTags',
        [id],
        [{ Key: 'team', Value: 'billing' }, { Key: 'env', Value: 'prod' }, { Key: 'owner' }, { Key: 'absent' }],
      );
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/delete-tags-empty-value-matches-only-empty',
    run: async (run) => {
      const id = await run.create('instance', { team: 'analytics', blank: '' });
      await deleteTags(
        run,
        'DeleteTags',
        [id],
        [
          { Key: 'team', Value: '' },
          { Key: 'blank', Value: '' },
        ],
      );
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/delete-tags-without-tags-deletes-all',
    run: async (run) => {
      const id = await run.create('instance', { team: 'analytics', env: 'prod' });
      await deleteTags(run, 'DeleteTags', [id]);
      await tagsOf(run, [id]);
    },
  },
  {
    name: 'ec2/delete-tags-aws-prefix',
    run: async (run) => {
      const id = await run.create('instance', { team: 'analytics' });
      await deleteTags(run, 'DeleteTags', [id], [{ Key: 'aws:cloudformation:stack-name' }]);
    },
  },
  {
    name: 'ec2/delete-tags-missing-instance',
    run: async (run) => {
      await deleteTags(run, 'DeleteTags', ['i-0123456789abcdef0'], [{ Key: 'team' }]);
    },
  },
  describeOnce('ec2/describe-tags-key-filter', [{ Name: 'key', Values: ['team'] }]),
  describeOnce('ec2/describe-tags-value-wildcard', [{ Name: 'value', Values: ['anal*'] }]),
  describeOnce('ec2/describe-tags-resource-type', [{ Name: 'resource-type', Values: ['volume', 'security-group'] }]),
  describeOnce('ec2/describe-tags-filters-and', [
    { Name: 'key', Values: ['team'] },
    { Name: 'resource-type', Values: ['instance'] },
  ]),
  describeOnce('ec2/describe-tags-tag-filter', [{ Name: 'tag:env', Values: ['prod'] }]),
  describeOnce('ec2/describe-tags-unknown-filter', [{ Name: 'colour', Values: ['red'] }]),
  {
    name: 'ec2/describe-tags-pages',
    run: async (run) => {
      await run.createMany(3, 'instance', (i) => ({ a: String(i), b: String(i), c: String(i), d: String(i) }));
      // Recorded as page sizes and every tag: which tag lands on which page depends on the IDs made up.
      const pages: number[] = [];
      const found: Tag[] = [];
      let token: string | undefined;
      do {
        const page = await run.attempt('DescribeTags 5 a page', () =>
          run.clients().ec2.send(new DescribeTagsCommand({ MaxResults: 5, ...(token ? { NextToken: token } : {}) })),
        );
        if (page === undefined) return;
        pages.push(page.Tags?.length ?? 0);
        found.push(...(page.Tags ?? []));
        token = page.NextToken;
      } while (token);
      run.note('DescribeTags 5 a page', { pages, Tags: found });
    },
  },
  {
    name: 'ec2/describe-tags-max-results-4',
    run: async (run) => {
      await run.create('instance', { team: 'a' });
      await describeTags(run, 'DescribeTags', { MaxResults: 4 });
    },
  },
  {
    name: 'ec2/create-tags-shows-in-get-resources',
    run: async (run) => {
      const id = await run.create('volume');
      await createTags(run, 'CreateTags', [id], [{ Key: 'team', Value: 'analytics' }]);
      await getAllResources(run, 'GetResources', { TagFilters: [{ Key: 'team' }] });
    },
  },
];
