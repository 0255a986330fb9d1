import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController, type RunningController } from '../../src/cli/run.js';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, eventually, startPlatform, type Platform } from './harness.js';

/** A TCP port free right now, for a replica whose metrics must be read before it returns (while it waits). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

/** The value of leader_election_master_status{name="keymaster"} on /metrics, or undefined when not exported. */
async function leaderStatus(metricsUrl: string): Promise<number | undefined> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = /^leader_election_master_status\{name="keymaster"\} (\d+)$/m.exec(text);
  return line ? Number(line[1]) : undefined;
}

describe('leader_election_master_status', function () {
  this.timeout(60_000);
  let platform: Platform | undefined;
  let standby: Promise<RunningController> | undefined;

  afterEach(async () => {
    await (await standby)?.stop();
    await platform?.stop();
    platform = standby = undefined;
  });

  it('is 1 on the leader and 0 on the standby, which takes over with 1 when the leader stops', async () => {
    let log = '';
    const stream = new PassThrough().on('data', (chunk: Buffer) => (log += chunk.toString()));
    platform = await startPlatform([], ['--leader-elect', '--metrics-bind-address', '127.0.0.1:0'], {
      logger: createControllerLogger('info', 'json', stream),
    });
    const leader = platform.controller;
    expect(await leaderStatus(leader.metricsUrl!)).to.equal(1);
    expect(
      log.split('\n').map((line) => (line ? (JSON.parse(line) as { message: string }).message : '')),
    ).to.include.members(['waiting for leadership', 'became leader']);

    const port = await freePort();
    const kubeconfig = join(await mkdtemp(join(tmpdir(), 'keymaster-standby-')), 'kubeconfig');
    await platform.kube.writeKubeConfig(kubeconfig);
    const flags = parseRunFlags([
      '--kubeconfig',
      kubeconfig,
      '--leader-elect',
      '--metrics-bind-address',
      `127.0.0.1:${port}`,
      '--health-probe-bind-address',
      '0',
    ]);
    standby = startController(flags, {
      aws: { endpoint: platform.aws.url, credentials: () => Promise.resolve(CONTROLLER_KEYS) },
      logger: createControllerLogger('error', 'json', new PassThrough().resume()),
    });
    const standbyUrl = `http://127.0.0.1:${port}`;
    await eventually(async () => expect(await leaderStatus(standbyUrl)).to.equal(0));

    // Stopping releases the Lease: the stopped replica says 0 (its registry, its server being closed).
    await leader.stop();
    const released = await leader.metrics.runtime.leaderElectionMasterStatus.get();
    expect(released.values).to.deep.equal([{ value: 0, labels: { name: 'keymaster' } }]);
    await eventually(async () => expect(await leaderStatus(standbyUrl)).to.equal(1));
  });

  it('is not exported without leader election', async () => {
    platform = await startPlatform([], ['--metrics-bind-address', '127.0.0.1:0']);
    expect(await leaderStatus(platform.controller.metricsUrl!)).to.equal(undefined);
  });
});
