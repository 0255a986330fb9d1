import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually, isAlive } from './helpers/processes.js';
import { ServerProcess } from '../../src/kube/process.js';

const SLEEPER = fileURLToPath(new URL('fixtures/start-sleeper.ts', import.meta.url));

describe('ServerProcess', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'testenv-process-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs a server in its own process group, its output in a log file, and stops it with SIGTERM', async () => {
    const server = await ServerProcess.start(
      'echoer',
      'sh',
      ['-c', 'echo started; exec sleep 600'],
      join(dir, 'echoer.log'),
    );
    expect(isAlive(-server.pid)).to.equal(true);
    await eventually(async () => expect(await readFile(join(dir, 'echoer.log'), 'utf8')).to.equal('started\n'));
    expect(server.logTail()).to.equal('started');
    await server.stop();
    expect(await server.exited()).to.equal('SIGTERM');
    expect(isAlive(-server.pid)).to.equal(false);
  });

  it('kills the whole group with SIGKILL when SIGTERM is ignored past the grace period', async () => {
    // The shell and its sleep both ignore SIGTERM (ignored signals stay ignored across exec).
    const server = await ServerProcess.start(
      'stubborn',
      'sh',
      ['-c', 'trap "" TERM; sleep 600 & wait'],
      join(dir, 'stubborn.log'),
    );
    await server.stop(300);
    expect(await server.exited()).to.equal('SIGKILL');
    await eventually(() => expect(isAlive(-server.pid)).to.equal(false));
  });

  it('leaves no orphan when the Node process that started it is killed with SIGKILL', async function () {
    this.timeout(30_000);
    const parent = spawn(process.execPath, ['--conditions=@keymaster/source', '--import', 'tsx', SLEEPER, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(createInterface({ input: parent.stdout }), 'line')) as [string];
    const pid = Number(line);
    expect(isAlive(pid)).to.equal(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    await eventually(() => expect(isAlive(pid), `sleep ${pid} outlived its parent`).to.equal(false));
  });
});
