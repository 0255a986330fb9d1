import { TestEnvError } from '../../../src/errors.js';
import { startMoto, type Moto } from '../../../src/moto/server.js';

/**
 * One moto_server for the enclosing suite, emptied before each test. When moto is not provisioned the
 * `before all` hook fails with the command that installs it: the suite fails, it is never skipped.
 */
export function withMoto(): { readonly moto: Moto } {
  let moto: Moto | undefined;
  before(async function () {
    this.timeout(90_000);
    try {
      moto = await startMoto();
    } catch (error) {
      // Mocha prints the message, not the hint: the hint names the command that installs moto.
      if (error instanceof TestEnvError) throw new Error(`${error.message}\nhint: ${error.hint}`, { cause: error });
      throw error;
    }
  });
  beforeEach(async () => {
    await moto!.reset();
  });
  after(async () => {
    // Undefined when the start failed: that failure is the one to see.
    await moto?.stop();
  });
  return {
    get moto() {
      return moto!;
    },
  };
}
