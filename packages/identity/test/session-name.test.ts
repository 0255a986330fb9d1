import { expect } from 'chai';
import { defaultSessionName } from '../src/index.js';

describe('defaultSessionName', () => {
  it('derives keymaster-<name> for identities', () => {
    expect(defaultSessionName('tenant-b')).to.equal('keymaster-tenant-b');
  });

  it('stays within 64 characters STS accepts, unique and stable for long names', () => {
    const long = `${'a'.repeat(70)}.example`;
    const name = defaultSessionName(long);
    expect(name)
      .to.have.length(64)
      .and.match(/^[\w+=,.@-]+$/);
    expect(defaultSessionName(long)).to.equal(name);
    expect(defaultSessionName(`${'a'.repeat(70)}.other`)).not.to.equal(name);
  });
});
