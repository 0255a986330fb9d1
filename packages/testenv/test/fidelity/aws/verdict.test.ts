import { expect } from 'chai';
import type { Comparison } from './corpus.js';
import type { Explanation } from './explained.js';
import type { Observation } from './run.js';
import { judge, outcome } from './verdict.js';

const refused: Observation = { step: 'AssumeRole', status: 403, error: 'AccessDenied', message: 'not authorized' };
const granted: Observation = { step: 'AssumeRole', status: 200, output: { Credentials: {} } };

const comparison = (
  name: string,
  awsEmulator: Observation[] = [refused],
  moto: Observation[] = [granted],
): Comparison => ({
  name,
  awsEmulator,
  moto,
  differences: awsEmulator.some((item, i) => JSON.stringify(item) !== JSON.stringify(moto[i]))
    ? [{ step: 'AssumeRole', awsEmulator: awsEmulator[0]!, moto: moto[0]! }]
    : [],
});

const explanation = (sequence: string, awsEmulator = 'AccessDenied', moto = 'ok'): Explanation => ({
  sequence,
  step: 'AssumeRole',
  outcomes: { awsEmulator, moto },
  deviates: 'moto',
  reason: 'moto evaluates no trust policy',
});

describe('judging a corpus run against the explained differences', () => {
  it('names what each side answered: the error code, ok, or missing', () => {
    expect([outcome(refused), outcome(granted), outcome(undefined)]).to.deep.equal(['AccessDenied', 'ok', 'missing']);
  });

  it('accepts a difference that is explained with the outcomes it shows', () => {
    const explained = explanation('sts/wrong-external-id');
    const verdict = judge(
      [comparison('sts/wrong-external-id'), comparison('sts/same', [granted], [granted])],
      [explained],
    );
    expect(verdict.unexplained).to.deep.equal([]);
    expect(verdict.stale).to.deep.equal([]);
    expect(verdict.explained.map(({ sequence, explanation: e }) => [sequence, e])).to.deep.equal([
      ['sts/wrong-external-id', explained],
    ]);
  });

  it('reports a difference nobody explained, and one whose outcomes are not the explained ones', () => {
    const verdict = judge(
      [comparison('sts/new-difference'), comparison('sts/changed', [refused], [{ ...refused, error: 'Throttling' }])],
      [explanation('sts/changed')],
    );
    expect(verdict.unexplained.map(({ sequence }) => sequence)).to.deep.equal(['sts/new-difference', 'sts/changed']);
    expect(verdict.stale.map(({ sequence }) => sequence)).to.deep.equal(['sts/changed']);
  });

  it('reports an explanation whose difference went away', () => {
    const verdict = judge([comparison('sts/fixed', [granted], [granted])], [explanation('sts/fixed')]);
    expect(verdict.unexplained).to.deep.equal([]);
    expect(verdict.stale.map(({ sequence }) => sequence)).to.deep.equal(['sts/fixed']);
  });
});
