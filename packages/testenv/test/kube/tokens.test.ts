import { expect } from 'chai';
import { TestEnvError } from '../../src/errors.js';
import { tokenFileText } from '../../src/kube/tokens.js';

function refusal(run: () => unknown): TestEnvError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(TestEnvError);
    return error as TestEnvError;
  }
  throw new Error('expected a TestEnvError');
}

describe('tokenFileText', () => {
  it('writes kube-apiserver\'s token,user,uid,"groups" lines', () => {
    expect(
      tokenFileText([
        { token: 't1', user: 'alice', uid: 'u1', groups: ['tenant-a', 'system:masters'] },
        { token: 't2', user: 'system:serviceaccount:ns:bob', uid: 'u2' },
        { token: 't3', user: 'carol', uid: 'u3', groups: [] },
      ]),
    ).to.equal('t1,alice,u1,"tenant-a,system:masters"\nt2,system:serviceaccount:ns:bob,u2\nt3,carol,u3\n');
  });

  it('refuses values that would break the CSV, naming the entry and field', () => {
    const comma = refusal(() =>
      tokenFileText([
        { token: 't', user: 'a', uid: 'u' },
        { token: 't2', user: 'b,c', uid: 'u' },
      ]),
    );
    expect(comma.code).to.equal('ERR_KEYMASTER_TESTENV_TOKENS');
    expect(comma.message).to.contain('tokens[1].user "b,c"');
    expect(comma.hint).to.contain('without spaces, commas or quotes');
    expect(refusal(() => tokenFileText([{ token: '', user: 'a', uid: 'u' }])).message).to.contain('tokens[0].token');
    expect(refusal(() => tokenFileText([{ token: 't', user: 'a', uid: 'u', groups: ['x"y'] }])).message).to.contain(
      'tokens[0].groups "x\\"y"',
    );
  });

  it('refuses a token given to two users (kube-apiserver would keep only one)', () => {
    const error = refusal(() =>
      tokenFileText([
        { token: 'same', user: 'a', uid: '1' },
        { token: 'same', user: 'b', uid: '2' },
      ]),
    );
    expect(error.message).to.equal('tokens[1].token is given to two users');
  });
});
