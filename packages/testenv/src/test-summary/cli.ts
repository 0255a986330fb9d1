import { spawn } from 'node:child_process';
import { parseResults, renderSummary, totals } from './results.js';

/**
 * `pnpm test`: every package's `test` script, one package at a time and all of them even after a
 * failure, its output passed through as it comes; then the summary (results.ts). Exits non-zero when
 * pnpm did or when any test failed. Arguments after the script's name are pnpm's own options
 * (`pnpm test --filter '!@keymaster/e2e'`: CI's second Node.js runs the e2e on the real server only).
 */
function main(): void {
  const [script = 'test', ...pnpmOptions] = process.argv.slice(2);
  const recursive = ['-r', ...pnpmOptions, '--no-bail', '--workspace-concurrency=1', '--if-present'];
  const child = spawn('pnpm', [...recursive, 'run', script], {
    stdio: ['inherit', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  // Ctrl-C reaches pnpm and the tests too: the summary of what ran is still printed.
  process.on('SIGINT', () => undefined);
  child.on('close', (code, signal) => {
    const results = parseResults(output);
    process.stdout.write(`${renderSummary(results, process.version).join('\n')}\n`);
    process.exitCode = code === 0 && signal === null && totals(results).failed === 0 ? 0 : code || 1;
  });
}

main();
