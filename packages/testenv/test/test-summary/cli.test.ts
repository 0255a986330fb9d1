import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/test-summary/cli.ts', import.meta.url));
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const SPECS = {
  // Nested suites, a failure, a pending test: mocha's dot reporter as `pnpm test` runs it.
  mixed: `describe('outer', () => {
  describe('inner', () => {
    it('works', () => {});
    it('breaks: badly', () => { throw new Error('boom'); });
  });
  it('also breaks', () => { throw new Error('bang'); });
  it.skip('comes later', () => {});
});`,
  green: `describe('green', () => { it('a', () => {}); it('b', () => {}); });`,
};

/** A workspace of four packages: failing tests, passing ones, a test script that dies before mocha, and none. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keymaster-test-summary-'));
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), 'packages: [mixed, green, broken, none]\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'root', private: true }));
  const mocha = (spec: string) => `node ${MOCHA} --reporter dot --no-config ${spec}`;
  const scripts = { mixed: mocha('spec.cjs'), green: mocha('spec.cjs'), broken: 'node -e "process.exit(3)"' };
  for (const name of ['mixed', 'green', 'broken', 'none'] as const) {
    mkdirSync(join(dir, name));
    const test = name === 'none' ? {} : { test: scripts[name] };
    writeFileSync(
      join(dir, name, 'package.json'),
      JSON.stringify({ name: `@w/${name}`, version: '1.0.0', scripts: test }),
    );
    if (name === 'mixed' || name === 'green') writeFileSync(join(dir, name, 'spec.cjs'), SPECS[name]);
  }
  return dir;
}

const pathEnv = () => ({
  ...process.env,
  PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env['PATH'] ?? ''}`,
});

function runSummary(cwd: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(join(ROOT, 'node_modules', '.bin', 'tsx'), [CLI], { cwd, env: pathEnv() }, (error, stdout) =>
      resolve({ code: error ? Number(error.code) : 0, stdout }),
    );
  });
}

describe('pnpm test (test-summary/cli.ts)', function () {
  this.timeout(60_000);

  it("keeps each package's output, then ends with a table, the failing tests by name and the grand total", async () => {
    const { code, stdout } = await runSummary(workspace());
    expect(code).to.not.equal(0);
    // Each package's mocha lines stay in the log (CI sums them).
    expect(stdout)
      .to.match(/^ +1 passing/m)
      .and.match(/^ +2 failing/m)
      .and.match(/^ +2 passing/m);
    const [title, ...summary] = stdout.slice(stdout.lastIndexOf('Test summary')).split('\n');
    // The Node.js the packages' tests ran on: the `node` on PATH, which the tsx of the root script runs.
    expect(title).to.equal(
      `Test summary on Node.js ${execFileSync('node', ['--version'], { env: pathEnv() }).toString().trim()}`,
    );
    expect(summary.map((line) => line.trimEnd())).to.deep.equal([
      '  PACKAGE        PASSED   FAILED   PENDING',
      '  @w/broken   no result        0         0',
      '  @w/green            2        0         0',
      '  @w/mixed            1        2         1',
      '',
      'Failing:',
      '  @w/mixed: outer also breaks',
      '  @w/mixed: outer inner breaks: badly',
      '  @w/broken: reported no result (see its output above)',
      '',
      '3 passed, 3 failed',
      '',
    ]);
  });

  it('exits 0 when every test passed', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), 'packages: [green, none]\n');
    const { code, stdout } = await runSummary(dir);
    expect(stdout.trimEnd().split('\n').at(-1)).to.equal('2 passed, 0 failed');
    expect(code).to.equal(0);
  });
});
