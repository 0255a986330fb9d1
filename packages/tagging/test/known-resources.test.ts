import { expect } from 'chai';
import { knownAfter } from '../src/known-resources.js';

const A = 'arn:aws:ec2:us-east-1:111111111111:instance/i-a';
const B = 'arn:aws:ec2:us-east-1:111111111111:instance/i-b';

describe('knownAfter', () => {
  const planned = {
    resources: { [A]: { team: 'a', legacy: 'x' }, [B]: { team: 'a' } },
    regions: { [A]: 'us-east-1', [B]: 'us-east-1' },
  };

  it('records the writes read back, forgets the resources gone, and leaves its input as it was', () => {
    const known = knownAfter(
      planned,
      [{ arn: A, region: 'us-east-1', set: { team: 'b' }, removed: ['legacy'] }],
      [{ arn: B }],
    );
    expect(known).to.deep.equal({ resources: { [A]: { team: 'b' } }, regions: { [A]: 'us-east-1' } });
    expect(planned.resources[A]).to.deep.equal({ team: 'a', legacy: 'x' });
    expect(planned.regions).to.have.all.keys(A, B);
  });

  it('is what was planned from when nothing was written', () => {
    expect(knownAfter(planned, [], [])).to.deep.equal(planned);
  });
});
