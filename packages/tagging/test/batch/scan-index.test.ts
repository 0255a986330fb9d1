import { expect } from 'chai';
import { ownershipTagKeys } from '@keymaster/api';
import type { ResourceTags } from '../../src/aws/get-resources.js';
import { ScanIndex } from '../../src/batch/scan-index.js';
import { instanceArn, owned } from '../fixtures.js';

const [CAPA_KEY] = ownershipTagKeys('alpha');

/** Tags as the planner reads them, `__proto__` included as an own entry. */
function withProto(tags: Record<string, string>, value: string): Record<string, string> {
  const record = { ...tags };
  Object.defineProperty(record, '__proto__', { value, enumerable: true, writable: true });
  return record;
}

describe('ScanIndex: what a scan found, by cluster, handed out once', () => {
  const alpha: ResourceTags[] = [
    { arn: instanceArn('i-1'), tags: { ...owned('owned', 'alpha'), team: 'platform', empty: '' } },
    { arn: instanceArn('i-2'), tags: withProto({ [CAPA_KEY!]: 'owned', 'Name ü': 'ünïcode value' }, 'a tag') },
  ];
  const both: ResourceTags = {
    arn: instanceArn('i-3'),
    tags: { ...owned('shared', 'alpha'), ...owned('shared', 'beta') },
  };
  const nobodys: ResourceTags = { arn: instanceArn('i-4'), tags: { team: 'someone else' } };

  it('gives each cluster exactly the resources, tags and values it owns, a resource of two names to both', () => {
    const index = new ScanIndex(() => {});
    index.add([...alpha, both, nobodys]);

    const found = index.take('alpha')!;
    expect(found).to.deep.equal([...alpha, both]);
    expect(Object.hasOwn(found[1]!.tags, '__proto__')).to.equal(true);
    expect(Object.getPrototypeOf(found[1]!.tags)).to.equal(Object.prototype);
    expect(index.take('beta')).to.deep.equal([both]);
    expect(index.take('nobody'), 'a name with no resources').to.deep.equal([]);
  });

  it('hands a name’s resources out once, and nothing after clear', () => {
    const index = new ScanIndex(() => {});
    index.add([...alpha, both]);
    expect(index.take('alpha')).to.have.length(3);
    expect(index.take('alpha')).to.equal(undefined);
    index.clear();
    expect(index.take('beta')).to.equal(undefined);
  });

  it('keeps a resource with a control character in it as it came', () => {
    const odd: ResourceTags = { arn: instanceArn('i-5'), tags: { ...owned('owned', 'alpha'), note: 'a\u0000b' } };
    const index = new ScanIndex(() => {});
    index.add([odd]);
    expect(index.take('alpha')).to.deep.equal([odd]);
  });

  it('counts what it keeps, packed (well under the objects read), and frees it as clusters take theirs', () => {
    let freed = 0;
    const index = new ScanIndex((bytes) => (freed += bytes));
    const page = Array.from({ length: 100 }, (_, i) => ({
      arn: instanceArn(`i-${i.toString(16).padStart(17, '0')}`),
      tags: { ...owned('owned', `cluster-${i % 5}`), 'cost-center': 'cc-1234', tenant: 'tenant-07', team: 'platform' },
    }));
    const added = index.add([...page, nobodys]);
    expect(added).to.equal(index.bytes);
    // Packed, a resource takes about its characters: the page as JSON; as objects, twice that.
    expect(added / page.length).to.be.below(1.2 * (JSON.stringify(page).length / page.length));
    index.take('cluster-0');
    expect(freed).to.be.within(1, added - 1);
    index.clear();
    expect(freed).to.equal(added);
    expect(index.bytes).to.equal(0);
  });
});
