#!/usr/bin/env node
import { runCli } from '../../../scripts/run-cli.mjs';

await runCli(import.meta.url, 'cli');
