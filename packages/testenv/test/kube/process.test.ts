import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually, isAlive } from './helpers/processes.js';
import { TestEnvError } from '../../src/errors.js';
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
      ['-c', 'trap "" TERM; echo trapped; sleep 600 & wait'],
      join(dir, 'stubborn.log'),
    );
    await eventually(() => expect(server.log()).to.equal('trapped\n'));
    await server.stop(300);
    expect(await server.exited()).to.equal('SIGKILL');
    await eventually(() => expect(isAlive(-server.pid)).to.equal(false));
  });

  it('waits until ready, and says why when the server exits or takes too long', async () => {
    const ready = await ServerProcess.start('ready', 'sleep', ['600'], join(dir, 'ready.log'));
    let polls = 0;
    await ready.waitReady(5_000, () => ++polls === 3);
    expect(polls).to.equal(3);
    const slow = await ServerProcess.start(
      'slow',
      'sh',
      ['-c', 'echo warming up; exec sleep 600'],
      join(dir, 'slow.log'),
    );
    // Under load the shell may not have written yet: the message quotes the log, so wait for it.
    await eventually(() => expect(slow.log()).to.equal('warming up\n'));
    const late = await slow.waitReady(300, () => false).catch((error: unknown) => error);
    expect(late)
      .to.be.instanceOf(TestEnvError)
      .with.property('message', 'slow was not ready after 0.3 s; the end of its log:\nwarming up');
    await Promise.all([ready.stop(), slow.stop()]);
    const broken = await ServerProcess.start(
      'broken',
      'sh',
      ['-c', 'echo no config >&2; exit 3'],
      join(dir, 'broken.log'),
    );
    const failed = await broken.waitReady(60_000, () => false).catch((error: unknown) => error);
    expect(failed)
      .to.be.instanceOf(TestEnvError)
      .with.property('message', 'broken exited (3) while starting; the end of its log:\nno config');
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
