import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TestEnvError } from '../../src/errors.js';
import {
  MOTO_PROVISION_SCRIPT,
  MOTO_REQUIREMENTS,
  motoInstallation,
  motoVersion,
  requireMoto,
} from '../../src/moto/installation.js';
import { startMoto } from '../../src/moto/server.js';
import { startMotoCli } from './support/cli.js';

describe('the moto installation', () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-moto-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  /** Makes the cache look as provision-moto.sh leaves it, with this marker text. */
  async function fakeInstall(marker: string): Promise<string> {
    const { dir, server } = motoInstallation(cache);
    await mkdir(join(dir, 'bin'), { recursive: true });
    await writeFile(server, '#!/bin/sh\n');
    await chmod(server, 0o755);
    await writeFile(join(dir, '.keymaster-requirements.sha256'), marker);
    return createHash('sha256')
      .update(await readFile(MOTO_REQUIREMENTS))
      .digest('hex');
  }

  it('pins moto[server] and every dependency to an exact version', async () => {
    const lines = (await readFile(MOTO_REQUIREMENTS, 'utf8')).split('\n').filter((line) => /^[A-Za-z]/.test(line));
    expect(lines.filter((line) => !/^[A-Za-z0-9_.[\]-]+==[\w.]+$/.test(line))).to.deep.equal([]);
    expect(lines).to.include(`moto[server]==${motoVersion(await readFile(MOTO_REQUIREMENTS, 'utf8'))}`);
    expect(motoVersion('flask==3.1.3\nmoto[server]==5.2.5\n')).to.equal('5.2.5');
  });

  it('lives in the cache dir, one virtualenv per moto version, where provision-moto.sh installs it', async () => {
    const installation = motoInstallation(cache);
    expect(installation.dir).to.equal(join(cache, `moto-${installation.version}`));
    expect(installation.server).to.equal(join(installation.dir, 'bin', 'moto_server'));
    // provision-moto.sh names the tool; pip-venv.sh, which it sources, makes the virtualenv.
    expect(await readFile(MOTO_PROVISION_SCRIPT, 'utf8')).to.contain('tool=moto\n');
    const venv = await readFile(join(dirname(MOTO_PROVISION_SCRIPT), 'pip-venv.sh'), 'utf8');
    expect(venv).to.contain('venv="$cache/$tool-$version"');
    expect(venv).to.contain('marker="$venv/.keymaster-requirements.sha256"');
  });

  it('when missing, fails with the path it looked for and the command that installs it', () => {
    const { server, version } = motoInstallation(cache);
    try {
      requireMoto(cache);
      expect.fail('requireMoto succeeded on an empty cache');
    } catch (error) {
      expect(error).to.be.instanceOf(TestEnvError);
      const { code, message, hint } = error as TestEnvError;
      expect(code).to.equal('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED');
      expect(message).to.equal(`moto ${version} is not provisioned: ${server} does not exist`);
      expect(hint).to.contain(`run bash ${MOTO_PROVISION_SCRIPT} (or pnpm --filter @keymaster/testenv provision:moto)`);
    }
  });

  it('is refused when it was installed from other requirements or did not finish, and found when it did', async () => {
    await fakeInstall('');
    expect(() => requireMoto(cache)).to.throw(
      TestEnvError,
      /was not installed from the current .*moto-requirements\.txt/,
    );
    const hash = await fakeInstall('0'.repeat(64));
    expect(() => requireMoto(cache)).to.throw(TestEnvError, /was not installed from the current/);
    await fakeInstall(`${hash}\n`);
    expect(requireMoto(cache)).to.deep.equal(motoInstallation(cache));
  });

  it('startMoto rejects with the same error, starting nothing', async () => {
    const error = await startMoto({ cacheDir: cache }).then(
      () => expect.fail('startMoto succeeded on an empty cache'),
      (failure: unknown) => failure as TestEnvError,
    );
    expect(error.code).to.equal('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED');
  });
});

describe('the moto command, before anything starts', function () {
  this.timeout(20_000);

  it('refuses to start unprovisioned, naming what is missing and the command that installs it', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'testenv-moto-cache-'));
    try {
      const cli = startMotoCli(['--port', '0'], { ...process.env, XDG_CACHE_HOME: cache });
      expect(await cli.exit).to.equal(2);
      expect(cli.stdout()).to.equal('');
      expect(cli.stderr()).to.contain(`moto: moto ${motoInstallation(cache).version} is not provisioned: ${cache}/`);
      expect(cli.stderr()).to.contain(`\nhint: run bash ${MOTO_PROVISION_SCRIPT}`);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it('refuses a port out of range and unknown flags', async () => {
    const port = startMotoCli(['--port', '70000']);
    expect(await port.exit).to.equal(2);
    expect(port.stderr()).to.contain('moto: --port must be a whole number from 0 to 65535, got 70000');
    const unknown = startMotoCli(['--kubeconfig', 'x']);
    expect(await unknown.exit).to.equal(2);
    expect(unknown.stderr()).to.contain("Unknown option '--kubeconfig'").and.to.contain('usage: moto [--port N]');
  });
});
