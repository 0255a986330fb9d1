import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestEnvError } from '../../src/errors.js';
import { freePorts } from '../../src/kube/ports.js';
import { startMoto } from '../../src/moto/server.js';
import { awsClients, MOTO_ACCOUNT } from './support/clients.js';
import { startMotoCli } from './support/cli.js';
import { createVolume } from './support/resources.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return text.split(' ').filter(Boolean).map(Number);
}

async function gone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 5000 && alive(pid); waited += 50) await sleep(50);
  return !alive(pid);
}

describe('startMoto', function () {
  this.timeout(90_000);

  it('serves on the port asked for, answers the AWS SDK, forgets everything on reset, and stops its process', async () => {
    const [port] = await freePorts(1);
    const moto = await startMoto({ port: port! });
    try {
      expect(moto.url).to.equal(`http://127.0.0.1:${port}`);
      const clients = awsClients(moto.url);
      expect(await clients.sts.send(new GetCallerIdentityCommand({}))).to.include({ Account: MOTO_ACCOUNT });
      await createVolume(clients, MOTO_ACCOUNT);
      expect((await clients.ec2.send(new DescribeVolumesCommand({}))).Volumes).to.have.length(1);

      await moto.reset();

      expect((await clients.ec2.send(new DescribeVolumesCommand({}))).Volumes).to.deep.equal([]);
    } finally {
      await moto.stop();
    }
    expect(await moto.exited()).to.be.oneOf([0, 'SIGTERM', -15, 143]);
    expect(alive(moto.pid)).to.equal(false);
    await moto.stop();
  });

  it("fails with moto_server's own words when the port is taken", async () => {
    const first = await startMoto();
    try {
      const error = await startMoto({ port: Number(new URL(first.url).port) }).then(
        () => expect.fail('a second moto started on a port in use'),
        (failure: unknown) => failure as TestEnvError,
      );
      expect(error).to.be.instanceOf(TestEnvError);
      expect(error.code).to.equal('ERR_KEYMASTER_TESTENV_START');
      expect(error.message).to.match(/^moto_server exited \(1\) while starting; the end of its log:\n/);
      expect(error.message).to.contain('already in use');
    } finally {
      await first.stop();
    }
  });
});

describe('pnpm moto', function () {
  this.timeout(90_000);
  // Each run gets its own TMPDIR, where moto_server's log folder goes: what is left there is a leak.
  let tmp: string;
  beforeEach(async () => (tmp = await mkdtemp(join(tmpdir(), 'testenv-moto-cli-'))));
  afterEach(() => rm(tmp, { recursive: true, force: true }));
  const logFolders = async () => (await readdir(tmp)).filter((name) => name.startsWith('keymaster-moto-'));

  it('prints "listening on URL" first, serves there, and stops moto_server on SIGTERM, leaving nothing', async () => {
    const cli = startMotoCli(['--port', '0'], { ...process.env, TMPDIR: tmp });
    try {
      const line = await cli.firstLine;
      const [, url] = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line) ?? [];
      expect(url, line).to.be.a('string');
      expect(await awsClients(url!).sts.send(new GetCallerIdentityCommand({}))).to.include({ Account: MOTO_ACCOUNT });
      const [server] = await childrenOf(cli.child.pid!);
      expect(await logFolders()).to.have.length(1);

      cli.child.kill('SIGTERM');

      expect(await cli.exit).to.equal(0);
      expect(await gone(server!), 'moto_server still runs').to.equal(true);
      expect(await logFolders()).to.deep.equal([]);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('leaves no moto_server behind when it is killed outright', async () => {
    const cli = startMotoCli([], { ...process.env, TMPDIR: tmp });
    await cli.firstLine;
    const [server] = await childrenOf(cli.child.pid!);
    expect(alive(server!)).to.equal(true);

    cli.child.kill('SIGKILL');

    expect(await gone(server!), 'moto_server outlived its parent').to.equal(true);
  });
});
