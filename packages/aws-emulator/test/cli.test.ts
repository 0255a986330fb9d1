import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { testWorld } from './support/world.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function startCli(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--conditions=@keymaster/source', '--import', 'tsx', CLI, ...args], {
    stdio: 'pipe',
  });
}

async function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return line;
}

async function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('aws-emulator CLI', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aws-emulator-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints `listening on URL` first, serves the world file, and exits cleanly on SIGTERM', async () => {
    const world = join(dir, 'world.json');
    await writeFile(world, JSON.stringify(testWorld()));
    const child = startCli(['--port', '0', '--host', '127.0.0.1', '--world', world]);
    const exit = exitOf(child);
    const line = await firstLine(child);
    expect(line).to.match(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const resources = (await (
      await fetch(`${line.slice('listening on '.length)}/_emulator/resources`)
    ).json()) as unknown[];
    expect(resources).to.have.length(4);
    child.kill('SIGTERM');
    expect((await exit).code).to.equal(0);
  });

  it('exits cleanly on SIGINT', async () => {
    const child = startCli([]);
    const exit = exitOf(child);
    await firstLine(child);
    child.kill('SIGINT');
    expect((await exit).code).to.equal(0);
  });

  it('exits with 1 and names the field when the world is invalid', async () => {
    const world = join(dir, 'world.yaml');
    await writeFile(world, 'accounts:\n  - id: "12"\n');
    const { code, stderr } = await exitOf(startCli(['--world', world]));
    expect(code).to.equal(1);
    expect(stderr).to.contain('accounts[0].id: "12" is not valid: must be a 12-digit account ID in quotes');
    expect(stderr).to.contain('hint: Fix the named field in the world file');
  });

  it('exits with 2 and the usage on a bad option', async () => {
    const { code, stderr } = await exitOf(startCli(['--port', 'eighty']));
    expect(code).to.equal(2);
    expect(stderr).to.contain('usage: aws-emulator [--port N] [--host 127.0.0.1] [--world FILE]');
  });
});
