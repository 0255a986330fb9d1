import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually, isAlive, processesWithArgument } from './helpers/processes.js';
import { TestEnvError } from '../../src/errors.js';
import { ServerProcess } from '../../src/kube/process.js';

const SLEEPER = fileURLToPath(new URL('fixtures/start-sleeper.ts', import.meta.url));
const START_AND_DIE = fileURLToPath(new URL('fixtures/start-and-die.ts', import.meta.url));

/** A START_AND_DIE parent, spawned ahead of its run: it loads in seconds under load, and runs in milliseconds. */
function parentReady(dir: string, marker: string, delayMs: number) {
  const parent = spawn(
    process.execPath,
    ['--conditions=@keymaster/source', '--import', 'tsx', START_AND_DIE, dir, marker, String(delayMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(parent, 'exit') as Promise<[number | null, string | null]>;
  const lines: string[] = [];
  const reader = createInterface({ input: parent.stdout }).on('line', (line) => lines.push(line));
  /** Resolves once `count` lines have come, or when no more will. */
  const linesCame = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (lines.length >= count) resolve();
      };
      reader.on('line', check).on('close', resolve);
      check();
    });
  return {
    parent,
    /** Starts the server and dies; resolves with how it died and what it printed. */
    async run(): Promise<{ signal: string | null; lines: string[] }> {
      await Promise.race([linesCame(1), exited]); // exited first: it failed to load, and said why on stderr
      if (lines.length > 0) parent.stdin.write('go\n');
      const [, signal] = await exited;
      // Not 'close': a child stopped before its exec holds the parent's stdout open.
      await linesCame(2);
      return { signal, lines };
    },
  };
}

function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

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

  it('leaves no orphan when its parent is killed right after starting it, 50 times in a row under CPU load', async function () {
    this.timeout(600_000);
    // Two busy loops, so that the children wait for a core as they do in a loaded CI run. They are
    // ServerProcesses too: a test runner killed meanwhile takes them with it.
    const load = await Promise.all(
      [1, 2].map((n) =>
        ServerProcess.start(`busy-loop-${n}`, 'sh', ['-c', 'while :; do :; done'], join(dir, `busy-${n}.log`)),
      ),
    );
    // sleep takes a fraction: an argument no other process has, to find the child by at every stage.
    const markers = Array.from(
      { length: 50 },
      (_, run) => `600.${process.pid}${Date.now()}${String(run).padStart(2, '0')}`,
    );
    // The child is stopped and its parent killed 0 to 4 ms after the fork: before setpriv arms the
    // parent death signal, or after.
    const delayOf = (run: number) => run % 5;
    // Three parents load ahead, so that the runs follow one another closely.
    const waiting = markers.slice(0, 3).map((marker, run) => parentReady(dir, marker, delayOf(run)));
    try {
      for (const [run, marker] of markers.entries()) {
        const next = markers[run + waiting.length];
        if (next !== undefined) waiting.push(parentReady(dir, next, delayOf(run + waiting.length)));
        const { signal, lines } = await waiting.shift()!.run();
        expect(signal, `run ${run}: the parent did not get to kill itself`).to.equal('SIGKILL');
        expect(lines, `run ${run}: the parent printed no child`).to.have.length(2);
        expect(lines[1], `run ${run}: the child's pid`).to.match(/^\d+$/);
        // The parent is gone: the child runs on from wherever it was stopped (gone already if the
        // kernel killed it with its parent).
        signalIfAlive(Number(lines[1]), 'SIGCONT');
        await eventually(() =>
          expect(
            processesWithArgument(marker),
            `run ${run}: sleep ${marker} outlived its parent, which died ${delayOf(run)} ms after the fork`,
          ).to.deep.equal([]),
        );
      }
    } finally {
      for (const { parent } of waiting) parent.kill('SIGKILL');
      await Promise.all(load.map((loop) => loop.stop()));
      for (const pid of markers.flatMap((marker) => processesWithArgument(marker))) signalIfAlive(pid, 'SIGKILL');
    }
  });
});
