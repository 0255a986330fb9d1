import { expect } from 'chai';
import { withEmulator } from './support/emulator.js';

describe('connections', () => {
  const context = withEmulator();

  it('are kept idle for a minute, and every response says so', async () => {
    const response = await fetch(`${context.emulator.url}/_emulator/clock`);
    await response.arrayBuffer();
    expect(response.headers.get('connection')).to.equal('keep-alive');
    expect(response.headers.get('keep-alive')).to.equal('timeout=60');
  });
});
