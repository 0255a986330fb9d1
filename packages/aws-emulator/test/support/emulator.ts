import { startAwsEmulator, type AwsEmulator, type World } from '../../src/index.js';
import { testWorld } from './world.js';

/** A fresh emulator for every test of the enclosing suite, stopped after it. */
export function withEmulator(world: () => World = testWorld): { readonly emulator: AwsEmulator } {
  const holder = {} as { emulator: AwsEmulator };
  beforeEach(async () => {
    holder.emulator = await startAwsEmulator({ world: world() });
  });
  afterEach(async () => {
    await holder.emulator.stop();
  });
  return holder;
}
