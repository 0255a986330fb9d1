import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLUSTERCTL_PROVISION_SCRIPT,
  clusterApiVersion,
  clusterctlInstallation,
  requireClusterctl,
} from '../../src/clusterctl/installation.js';
import { TestEnvError } from '../../src/errors.js';

describe('clusterctl and Cluster API CRDs', () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  it('are pinned to Cluster API 1.14, which speaks the v1beta2 contract', () => {
    expect(clusterApiVersion()).to.match(/^1\.14\.\d+$/);
    expect(clusterApiVersion('# x\nCLUSTER_API_VERSION=1.15.0\n')).to.equal('1.15.0');
    expect(() => clusterApiVersion('CLUSTER_API_VERSION=v1.15\n')).to.throw('no CLUSTER_API_VERSION=');
  });

  it('live in the cache dir, one folder per release, where provision-clusterctl.sh puts them', async () => {
    const version = clusterApiVersion();
    expect(clusterctlInstallation(cache)).to.deep.equal({
      version,
      clusterctl: join(cache, 'clusterctl', `v${version}`, 'clusterctl'),
      crds: join(cache, 'clusterctl', `v${version}`, 'crds'),
    });
    const script = await readFile(CLUSTERCTL_PROVISION_SCRIPT, 'utf8');
    expect(script).to.contain(
      'dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/clusterctl/v$CLUSTER_API_VERSION"',
    );
  });

  it('are required whole: the binary, and the CRDs the script marks complete last', async () => {
    const installation = clusterctlInstallation(cache);
    const refused = () => {
      try {
        requireClusterctl(cache);
        return undefined;
      } catch (error) {
        return error as TestEnvError;
      }
    };
    expect(refused()).to.be.instanceOf(TestEnvError).and.to.include({ code: 'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED' });
    expect(refused()?.message).to.match(/; run \S+\/provision-clusterctl\.sh$/);
    await mkdir(installation.crds, { recursive: true });
    await writeFile(installation.clusterctl, '#!/bin/sh\n');
    await chmod(installation.clusterctl, 0o755);
    expect(refused(), 'CRDs not complete').to.be.instanceOf(TestEnvError);
    await writeFile(join(installation.crds, '.complete'), '');
    expect(requireClusterctl(cache)).to.deep.equal(installation);
  });
});
