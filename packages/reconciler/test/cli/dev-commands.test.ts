import { expect } from 'chai';
import { keymaster } from './keymaster.js';

// The production binary (the image, the chart) has no demo: it would need the emulators.
describe('keymaster demo and emulate in the production binary', function () {
  this.timeout(30_000);

  for (const command of ['demo', 'emulate'])
    it(`\`keymaster ${command}\` exits 2 and says to run it from a clone (pnpm keymaster ${command})`, async () => {
      const { code, stdout, stderr } = await keymaster([command, '--once']);
      expect({ code, stdout }).to.deep.equal({ code: 2, stdout: '' });
      expect(stderr).to.equal(
        `keymaster: "keymaster ${command}" is a development command: this keymaster (the production build) does not have it\n` +
          `hint: Run it from a clone of the repository: pnpm install, then pnpm keymaster ${command} (packages/devtools).\n`,
      );
    });

  it('lists them in its usage as dev only', async () => {
    const { code, stdout } = await keymaster(['--help']);
    expect(code).to.equal(0);
    expect(stdout)
      .to.match(/^ {2}demo .*\(dev only\)$/m)
      .and.match(/^ {2}emulate .*\(dev only\)$/m);
  });
});
