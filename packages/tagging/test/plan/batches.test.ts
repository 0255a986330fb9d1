import { expect } from 'chai';
import { batchPlan, MAX_ARNS_PER_CALL, TaggingInputError } from '../../src/index.js';
import { instanceArn, memoryOf, owned, planFor } from '../fixtures.js';

/** `count` instance ARNs in `region`, each with `tags` on top of the ownership tags. */
const instances = (count: number, region: string, tags: Record<string, string> = {}) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      instanceArn(`i-${String(i).padStart(4, '0')}`, region),
      { ...owned(), ...tags },
    ]),
  );

describe('batchPlan', () => {
  it('needs ceil(n / 20) TagResources calls for n resources with the same change in one region', () => {
    const plan = planFor({ clusterTags: { team: 'a', env: 'dev' }, resources: instances(45, 'eu-west-1') });
    const { tag, untag } = batchPlan(plan);
    expect(tag.map(({ arns }) => arns.length)).to.deep.equal([20, 20, 5]);
    expect(tag.every((batch) => batch.region === 'eu-west-1')).to.equal(true);
    expect(tag[0]!.tags).to.deep.equal({ env: 'dev', team: 'a' });
    expect(new Set(tag.flatMap(({ arns }) => arns)).size).to.equal(45);
    expect(untag).to.deep.equal([]);
  });

  it('keeps one region per call', () => {
    const plan = planFor({
      clusterTags: { team: 'a' },
      resources: { ...instances(3, 'us-east-1'), ...instances(2, 'eu-west-1') },
    });
    expect(batchPlan(plan).tag.map(({ region, arns }) => [region, arns.length])).to.deep.equal([
      ['eu-west-1', 2],
      ['us-east-1', 3],
    ]);
  });

  it('sets adds and updates together, and groups only resources that need the very same tags', () => {
    const resources = {
      ...instances(2, 'eu-west-1', { team: 'a' }),
      [instanceArn('i-drifted')]: { ...owned(), team: 'edited' },
      [instanceArn('i-sync')]: { ...owned(), team: 'a', env: 'dev' },
    };
    const plan = planFor({
      clusterTags: { team: 'a', env: 'dev' },
      managedTags: { team: 'a', env: 'dev' },
      memory: memoryOf(Object.fromEntries(Object.keys(resources).map((arn) => [arn, { Cluster: { team: 'a' } }]))),
      resources,
    });
    // No bookkeeping rides along: the calls carry the layers' keys only.
    expect(batchPlan(plan).tag.map(({ tags, arns }) => [tags, arns])).to.have.deep.members([
      [{ env: 'dev' }, [instanceArn('i-0000'), instanceArn('i-0001')]],
      [{ env: 'dev', team: 'a' }, [instanceArn('i-drifted')]],
    ]);
  });

  it('groups removals by their keys, apart from the tags to set', () => {
    const plan = planFor({
      clusterTags: { team: 'a' },
      managedTags: { team: 'a', old: '1', older: '2' },
      removalPolicy: 'Delete',
      memory: memoryOf({
        [instanceArn('i-a')]: { Cluster: { old: '1' } },
        [instanceArn('i-b')]: { Cluster: { old: '1' } },
        [instanceArn('i-c')]: { Cluster: { old: '1', older: '2' } },
      }),
      resources: {
        [instanceArn('i-a')]: { ...owned(), team: 'a', old: '1', older: '2' },
        [instanceArn('i-b')]: { ...owned(), old: '1', older: '2' },
        [instanceArn('i-c')]: { ...owned(), team: 'a', old: '1', older: '2' },
      },
    });
    const { tag, untag } = batchPlan(plan);
    // Only what the memory says Keymaster wrote goes (older stays on i-a and i-b).
    expect(tag.map(({ tags, arns }) => [Object.keys(tags), arns])).to.deep.equal([[['team'], [instanceArn('i-b')]]]);
    expect(untag.map(({ keys, arns }) => [keys, arns])).to.have.deep.members([
      [['old'], [instanceArn('i-a'), instanceArn('i-b')]],
      [['old', 'older'], [instanceArn('i-c')]],
    ]);
  });

  it("removes legacy bookkeeping tags in the same calls as the cluster's removals", () => {
    const plan = planFor({
      clusterTags: { team: 'a' },
      removalPolicy: 'Delete',
      convertLegacy: true,
      memory: memoryOf({ [instanceArn('i-a')]: { Cluster: { old: '1' } } }),
      resources: {
        [instanceArn('i-a')]: { ...owned(), team: 'a', old: '1', 'keymaster.dev/claim': 'c' },
        [instanceArn('i-b')]: { ...owned(), team: 'a', 'keymaster.dev/claim': 'c' },
      },
    });
    expect(batchPlan(plan).untag.map(({ keys, arns }) => [keys, arns])).to.have.deep.members([
      [['keymaster.dev/claim', 'old'], [instanceArn('i-a')]],
      [['keymaster.dev/claim'], [instanceArn('i-b')]],
    ]);
  });

  it('leaves out skipped resources and withheld adds, and keeps the updates of resources over the limit', () => {
    const full = Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`other-${i}`, 'x']));
    const plan = planFor({
      clusterTags: { team: 'a', extra: 'e' },
      managedTags: { team: 'a' },
      resources: {
        [instanceArn('i-full')]: { ...owned(), ...full, team: 'edited' },
        [instanceArn('i-shared')]: owned('shared'),
      },
    });
    expect(batchPlan(plan).tag.map(({ tags, arns }) => [tags, arns])).to.deep.equal([
      [{ team: 'a' }, [instanceArn('i-full')]],
    ]);
  });

  it('takes a smaller batch size, and refuses one AWS would not', () => {
    const plan = planFor({ clusterTags: { team: 'a' }, resources: instances(5, 'eu-west-1') });
    expect(batchPlan(plan, 2).tag.map(({ arns }) => arns.length)).to.deep.equal([2, 2, 1]);
    for (const size of [0, MAX_ARNS_PER_CALL + 1, 1.5, Number.NaN]) {
      expect(() => batchPlan(plan, size)).to.throw(TaggingInputError, 'maxArnsPerCall');
    }
  });
});
