import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LOG_LOADS = fileURLToPath(new URL('fixtures/log-loads.mjs', import.meta.url));

/** The modules `keymaster <args>` loads, and what it printed. */
async function loadsOf(...args: string[]): Promise<{ stdout: string; loaded: string[] }> {
  const { stdout, stderr } = await run(process.execPath, [
    '--import',
    'tsx',
    '--conditions=@keymaster/source',
    '--import',
    LOG_LOADS,
    MAIN,
    ...args,
  ]);
  const loaded = stderr.split('\n').flatMap((line) => (line.startsWith('loaded ') ? [line.slice(7)] : []));
  return { stdout, loaded };
}

// The AWS SDK and client-node take seconds to load: what answers at once must not load them.
const HEAVY = /\/(@aws-sdk|@smithy|@kubernetes\/client-node)\//;

describe('keymaster loads a command when it runs', () => {
  const answersAtOnce = [['--help'], ['--version'], ['plan', '--help'], ['explain', '--help'], ['run', '--help']];
  for (const args of answersAtOnce) {
    it(`keymaster ${args.join(' ')} loads no AWS SDK and no client-node`, async () => {
      const { stdout, loaded } = await loadsOf(...args);
      expect(stdout).to.match(/^(Usage: keymaster|keymaster \d)/);
      expect(loaded, 'the hook logged nothing').to.not.be.empty;
      expect(loaded.filter((url) => HEAVY.test(url))).to.deep.equal([]);
    });
  }

  it('loads the command it runs, and only then', async () => {
    const { loaded } = await loadsOf('plan', '--help');
    expect(loaded.some((url) => url.endsWith('/src/cli/plan.ts'))).to.equal(true);
    expect(loaded.some((url) => url.endsWith('/src/inspect/cluster-plan.ts'))).to.equal(false);
  });
});
