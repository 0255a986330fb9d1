#!/usr/bin/env node
// The production `keymaster` binary (the image, the Helm chart): no dev-only commands.
import { runKeymaster } from './keymaster.js';

await runKeymaster(process.argv.slice(2));
