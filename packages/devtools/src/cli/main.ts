#!/usr/bin/env node
// `pnpm keymaster` in a clone of the repository: the production commands and the dev-only ones.
import { runKeymaster } from '@keymaster/reconciler';
import { demo } from './demo.js';
import { emulate } from './emulate.js';

await runKeymaster(process.argv.slice(2), { demo, emulate });
