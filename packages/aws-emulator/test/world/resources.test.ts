import { expect } from 'chai';
import { ResourceStore, setTags } from '../../src/world/resources.js';

const A = '111111111111';
const B = '222222222222';
const arn = (account: string, region: string, id: string) => `arn:aws:ec2:${region}:${account}:instance/i-${id}`;
const arnsOf = (resources: readonly { arn: string }[]) => resources.map((resource) => resource.arn);

describe('ResourceStore', () => {
  it('lists one account and region in ARN order, whatever the order resources were added in', () => {
    const store = new ResourceStore();
    store.put(arn(A, 'us-west-2', 'c'), {});
    store.put(arn(A, 'us-west-2', 'a'), { k: 'v' });
    store.put(arn(B, 'us-west-2', 'b'), {});
    store.put(arn(A, 'us-east-1', 'b'), {});
    store.put(arn(A, 'us-west-2', 'b'), {});
    expect(arnsOf(store.inScope(A, 'us-west-2'))).to.deep.equal([
      arn(A, 'us-west-2', 'a'),
      arn(A, 'us-west-2', 'b'),
      arn(A, 'us-west-2', 'c'),
    ]);
    expect(arnsOf(store.inScope(B, 'us-west-2'))).to.deep.equal([arn(B, 'us-west-2', 'b')]);
    expect(arnsOf(store.inScope(A, 'us-east-1'))).to.deep.equal([arn(A, 'us-east-1', 'b')]);
    expect(store.inScope(B, 'us-east-1')).to.deep.equal([]);
  });

  it('keeps the order right across adds and deletes after a listing', () => {
    const store = new ResourceStore();
    store.put(arn(A, 'us-west-2', 'b'), {});
    store.put(arn(A, 'us-west-2', 'd'), {});
    expect(arnsOf(store.inScope(A, 'us-west-2'))).to.deep.equal([arn(A, 'us-west-2', 'b'), arn(A, 'us-west-2', 'd')]);
    store.put(arn(A, 'us-west-2', 'c'), {});
    store.put(arn(A, 'us-west-2', 'a'), {});
    expect(store.delete(arn(A, 'us-west-2', 'b'))).to.equal(true);
    expect(arnsOf(store.inScope(A, 'us-west-2'))).to.deep.equal([
      arn(A, 'us-west-2', 'a'),
      arn(A, 'us-west-2', 'c'),
      arn(A, 'us-west-2', 'd'),
    ]);
    for (const id of ['a', 'c', 'd']) store.delete(arn(A, 'us-west-2', id));
    expect(store.inScope(A, 'us-west-2')).to.deep.equal([]);
    store.put(arn(A, 'us-west-2', 'e'), {});
    expect(arnsOf(store.inScope(A, 'us-west-2'))).to.deep.equal([arn(A, 'us-west-2', 'e')]);
  });

  it('keeps every resource listed through tag edits, with its current tags', () => {
    const store = new ResourceStore();
    store.put(arn(A, 'us-west-2', 'a'), { team: 'a' });
    store.put(arn(A, 'us-west-2', 'b'), {});
    store.inScope(A, 'us-west-2');
    store.put(arn(A, 'us-west-2', 'a'), {});
    setTags(store.get(arn(A, 'us-west-2', 'b'))!, [['team', 'b']]);
    const listed = store.inScope(A, 'us-west-2');
    expect(arnsOf(listed)).to.deep.equal([arn(A, 'us-west-2', 'a'), arn(A, 'us-west-2', 'b')]);
    expect(listed[0]!.tags.size).to.equal(0);
    expect(Object.fromEntries(listed[1]!.tags)).to.deep.equal({ team: 'b' });
  });

  it('hands out a listing that cannot be changed by its callers', () => {
    const store = new ResourceStore();
    store.put(arn(A, 'us-west-2', 'a'), {});
    const listed = store.inScope(A, 'us-west-2') as unknown[];
    expect(() => listed.pop()).to.throw(TypeError);
    expect(store.inScope(A, 'us-west-2')).to.have.length(1);
  });

  it('finds listed ARNs within one account and region only, once each, in ARN order', () => {
    const store = new ResourceStore();
    for (const id of ['a', 'b', 'c']) store.put(arn(A, 'us-west-2', id), {});
    store.put(arn(B, 'us-west-2', 'a'), {});
    store.put(arn(A, 'us-east-1', 'a'), {});
    const listed = store.listedInScope(A, 'us-west-2', [
      arn(A, 'us-west-2', 'c'),
      arn(B, 'us-west-2', 'a'),
      arn(A, 'us-east-1', 'a'),
      arn(A, 'us-west-2', 'missing'),
      arn(A, 'us-west-2', 'a'),
      arn(A, 'us-west-2', 'c'),
    ]);
    expect(arnsOf(listed)).to.deep.equal([arn(A, 'us-west-2', 'a'), arn(A, 'us-west-2', 'c')]);
    expect(store.listedInScope(B, 'us-east-1', [arn(B, 'us-west-2', 'a')])).to.deep.equal([]);
  });
});
