import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DEMO_WORLD, startEmulators, type Emulators } from '@keymaster/testenv';
import { KEYMASTER_VERSION } from '../../src/version.js';
import { eventually } from '../integration/harness.js';
import { keymaster, spawnKeymaster } from './keymaster.js';

describe('the version: keymaster --version, the first log line, keymaster_build_info', function () {
  this.timeout(60_000);

  for (const args of [['--version'], ['version'], ['run', '--version']])
    it(`\`keymaster ${args.join(' ')}\` prints "keymaster VERSION" and exits 0`, async () => {
      const { code, stdout, stderr } = await keymaster(args);
      expect({ code, stdout, stderr }).to.deep.equal({
        code: 0,
        stdout: `keymaster ${KEYMASTER_VERSION}\n`,
        stderr: '',
      });
    });

  it('`kubectl keymaster --version` prints it too', async () => {
    const { code, stdout } = await keymaster(['--version'], {}, 'kubectl-keymaster.ts');
    expect({ code, stdout }).to.deep.equal({ code: 0, stdout: `keymaster ${KEYMASTER_VERSION}\n` });
  });

  it('`keymaster run --help` lists --version', async () => {
    const { code, stdout } = await keymaster(['run', '--help']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^ {2}--version +print the version and exit$/m);
  });

  describe('keymaster run against the emulators', () => {
    let dir: string;
    let emulators: Emulators;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'keymaster-version-test-'));
      emulators = await startEmulators({
        world: DEMO_WORLD,
        kubeconfig: join(dir, 'kubeconfig'),
        namespace: 'keymaster-system',
      });
    });
    let child: ChildProcess | undefined;
    afterEach(() => child?.kill('SIGKILL'));
    after(async () => {
      await emulators.stop();
      await rm(dir, { recursive: true, force: true });
    });

    const run = () =>
      spawnKeymaster(['run', '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '0'], {
        HOME: dir,
        KUBECONFIG: join(dir, 'kubeconfig'),
        AWS_ENDPOINT_URL: emulators.aws.url,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: emulators.controller.accessKeyId,
        AWS_SECRET_ACCESS_KEY: emulators.controller.secretAccessKey,
      });

    it('stops as a pod is on a SIGTERM that comes while it starts (its first log line): exit 0', async () => {
      child = run();
      const running = child;
      const exited = new Promise<number | null>((resolve) => running.on('close', resolve));
      const messages: unknown[] = [];
      const log = createInterface({ input: running.stderr! });
      log.on('line', (line) => {
        messages.push((JSON.parse(line) as Record<string, unknown>)['message']);
        if (messages.length === 1) running.kill('SIGTERM');
      });
      expect(await exited).to.equal(0);
      expect(messages[0]).to.equal('keymaster');
      expect(messages).to.include('stopping');
    });

    it('logs the version first, and serves keymaster_build_info{version,node_version,platform} 1 on /metrics', async () => {
      child = run();
      const running = child;
      const exited = new Promise<number | null>((resolve) => running.on('close', resolve));
      try {
        // The log is on stderr, one JSON object a line (read on, so that the process never writes to a closed pipe).
        const lines: Record<string, unknown>[] = [];
        await new Promise<void>((resolve) => {
          const log = createInterface({ input: running.stderr! });
          log.on('line', (line) => {
            lines.push(JSON.parse(line) as Record<string, unknown>);
            if (lines.at(-1)!['message'] === 'starting') resolve();
          });
          log.on('close', resolve);
        });
        const starting = lines.find(({ message }) => message === 'starting');
        expect(starting, 'the "starting" line').to.not.equal(undefined);
        expect(lines[0]).to.include({ message: 'keymaster', version: KEYMASTER_VERSION, node: process.version });
        const metrics = await (await fetch(`${String(starting!['metrics'])}/metrics`)).text();
        const platform = `${process.platform}/${process.arch}`;
        expect(metrics).to.include(
          '# HELP keymaster_build_info Always 1; labelled with the Keymaster version, the Node.js version and the platform it runs on\n# TYPE keymaster_build_info gauge\n',
        );
        expect(metrics).to.include(
          `keymaster_build_info{version="${KEYMASTER_VERSION}",node_version="${process.version}",platform="${platform}"} 1\n`,
        );
        // Started, then stopped as a pod is.
        await eventually(() => expect(lines.map(({ message }) => message)).to.include('reconciling'));
      } finally {
        running.kill('SIGTERM');
      }
      expect(await exited).to.equal(0);
    });
  });
});
