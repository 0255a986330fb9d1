#!/usr/bin/env node
// `pnpm keymaster` in a clone of the repository: the production commands and the dev-only ones, each
// loaded when it runs (the emulators and the controller take seconds to load; --help needs neither).
import { runKeymaster } from '@keymaster/reconciler/cli';

await runKeymaster(process.argv.slice(2), {
  demo: async (args) => (await import('./demo.js')).demo(args),
  emulate: async (args) => (await import('./emulate.js')).emulate(args),
});
