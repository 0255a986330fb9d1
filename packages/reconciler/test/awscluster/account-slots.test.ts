import { expect } from 'chai';
import { AccountSlots } from '../../src/awscluster/account-slots.js';

describe('AccountSlots', () => {
  it('lets at most N reconciles into one account and region, and others in regardless', () => {
    const slots = new AccountSlots(2);
    expect([
      slots.tryEnter('111/us-west-2'),
      slots.tryEnter('111/us-west-2'),
      slots.tryEnter('111/us-west-2'),
    ]).to.deep.equal([true, true, false]);
    expect(slots.tryEnter('111/eu-west-1'), 'another region').to.equal(true);
    expect(slots.tryEnter('222/us-west-2'), 'another account').to.equal(true);
    slots.leave('111/us-west-2');
    expect(slots.tryEnter('111/us-west-2')).to.equal(true);
    expect(slots.tryEnter('111/us-west-2')).to.equal(false);
  });
});
