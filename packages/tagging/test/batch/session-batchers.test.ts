import { expect } from 'chai';
import { SessionBatchers, type TaggingSession } from '../../src/index.js';

const session = (accountId: string, key?: string): TaggingSession => ({
  accountId,
  ...(key === undefined ? {} : { key }),
  client: () => {
    throw new Error('no calls in this test');
  },
});

describe('SessionBatchers', () => {
  const batchers = new SessionBatchers();

  it('gives clusters of one credential set and region one scope, whatever session object they hold', () => {
    expect(batchers.scope(session('111111111111', 'chain-a'), 'eu-west-1')).to.equal(
      batchers.scope(session('111111111111', 'chain-a'), 'eu-west-1'),
    );
  });

  it('keeps other credentials, other regions and sessions without a key apart', () => {
    const keyless = session('111111111111');
    const scopes = [
      batchers.scope(session('111111111111', 'chain-a'), 'eu-west-1'),
      batchers.scope(session('111111111111', 'chain-b'), 'eu-west-1'),
      batchers.scope(session('111111111111', 'chain-a'), 'us-east-1'),
      batchers.scope(session('222222222222', 'chain-a'), 'eu-west-1'),
      batchers.scope(keyless, 'eu-west-1'),
      batchers.scope(session('111111111111'), 'eu-west-1'),
    ];
    expect(new Set(scopes).size).to.equal(scopes.length);
    expect(batchers.scope(keyless, 'eu-west-1')).to.equal(scopes[4]);
  });
});
