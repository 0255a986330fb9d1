import { expect } from 'chai';
import { holds, withFinalizer, withoutFinalizer, type Finalizer } from '../../src/kube/finalizers.js';

const OURS: Finalizer = {
  name: 'infrastructure.keymaster.dev/thing',
  formerNames: ['thing.infrastructure.keymaster.dev'],
};
const [FORMER] = OURS.formerNames;

describe('finalizer names', () => {
  it('hold under the name or a former one', () => {
    expect(holds([], OURS)).to.equal(false);
    expect(holds(['example.com/other'], OURS)).to.equal(false);
    expect(holds([OURS.name], OURS)).to.equal(true);
    expect(holds(['example.com/other', FORMER!], OURS)).to.equal(true);
  });

  it('are added under the name alone, a former name replaced where it stood, others kept in order', () => {
    const cases: [string[], string[] | undefined][] = [
      [[], [OURS.name]],
      [['example.com/a'], ['example.com/a', OURS.name]],
      [[OURS.name], undefined],
      [['example.com/a', OURS.name, 'example.com/b'], undefined],
      [
        ['example.com/a', FORMER!, 'example.com/b'],
        ['example.com/a', OURS.name, 'example.com/b'],
      ],
      [[FORMER!, OURS.name], [OURS.name]],
      [[OURS.name, FORMER!], [OURS.name]],
    ];
    for (const [before, after] of cases) expect(withFinalizer(before, OURS), before.join()).to.deep.equal(after);
  });

  it('are removed under every name, others kept', () => {
    expect(withoutFinalizer(['example.com/a', FORMER!, OURS.name, 'example.com/b'], OURS)).to.deep.equal([
      'example.com/a',
      'example.com/b',
    ]);
    expect(withoutFinalizer(['example.com/a'], OURS)).to.deep.equal(['example.com/a']);
  });
});
