import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const MAIN = fileURLToPath(new URL('../../scripts/bench/main.ts', import.meta.url));

/** Runs the bench with `args`, answering its exit code and standard error (a refused option exits before any work). */
const bench = (args: string[]) =>
  new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=@keymaster/source', MAIN, ...args],
      { timeout: 80_000 },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    ),
  );

describe('bench options', function () {
  // tsx compiles the bench's imports first: seconds on a busy machine.
  this.timeout(90_000);

  it("refuses, for an adopted fleet, the phases that edit Keymaster's own kinds, naming them", async () => {
    const { code, stderr } = await bench(['--adopted', '--phases', 'cold,sts,flood']);
    expect(code).to.equal(2);
    expect(stderr).to.include('--phases: sts, flood edit Keymaster');
    expect(stderr).to.include('--adopted');
  });

  it('refuses a baseline that names no commit, before any work', async () => {
    const { code, stderr } = await bench(['--baseline', 'no-such-commit-0x']);
    expect(code).to.equal(2);
    expect(stderr).to.include('--baseline=no-such-commit-0x: names no commit');
  });

  it('names an unknown phase', async () => {
    const { code, stderr } = await bench(['--phases', 'cold,warm']);
    expect(code).to.equal(2);
    expect(stderr).to.include('unknown phase "warm"');
  });
});
