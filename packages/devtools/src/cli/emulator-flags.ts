import type { FlagSpecs } from '@keymaster/reconciler';

/** The flags of the commands that start the emulators (`demo`, `emulate`). */
export const EMULATOR_FLAGS = {
  world: { type: 'string', help: "the aws-emulator's world file (default packages/testenv/emulated/world.yaml)" },
  kubeconfig: { type: 'string', help: 'write the kubeconfig here (default: a temporary file, removed at the end)' },
} satisfies FlagSpecs;
