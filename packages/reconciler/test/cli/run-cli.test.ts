import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const RUN_CLI = new URL('../../../../scripts/run-cli.mjs', import.meta.url).href;

// The shims the packages' `bin` entries point at (scripts/run-cli.mjs), run by plain node as npm's
// and pnpm's links run them: no tsx, no export condition on the command line.
describe('the bin shims (scripts/run-cli.mjs)', () => {
  it('run the TypeScript source when the package is not built, resolving workspace packages to their sources', async () => {
    const shim = fileURLToPath(new URL('fixtures/unbuilt/bin/cli.js', import.meta.url));
    const { stdout, stderr } = await run(process.execPath, [shim]);
    expect(stdout.trim()).to.match(/\/packages\/api\/src\/index\.ts$/);
    // Nor a warning: Node.js 26 deprecates the hook registration Node.js 20 has (DEP0205).
    expect(stderr).to.equal('');
  });

  it('run the built dist/ file when there is one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keymaster-shim-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    writeFileSync(
      join(dir, 'bin', 'cli.mjs'),
      `import { runCli } from '${RUN_CLI}';\nawait runCli(import.meta.url, 'cli');\n`,
    );
    writeFileSync(join(dir, 'dist', 'cli.js'), `process.stdout.write('built ' + process.argv.slice(2).join(' '));\n`);
    const { stdout } = await run(process.execPath, [join(dir, 'bin', 'cli.mjs'), 'a', 'b']);
    expect(stdout).to.equal('built a b');
  });

  it('keep the exit code of the command they run', async () => {
    const shim = fileURLToPath(new URL('../../bin/keymaster.js', import.meta.url));
    const error = await run(process.execPath, [shim, 'no-such-command']).catch((failure: unknown) => failure);
    expect(error).to.include({ code: 2 });
    expect((error as { stderr: string }).stderr).to.contain('unknown command "no-such-command"');
  });
});
