import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TestEnvError } from '../../src/errors.js';
import { kubeBinaries, pinnedVersions, PROVISION_SCRIPT, requireKubeBinaries } from '../../src/kube/binaries.js';

describe('the kube binaries', () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  it('are pinned to kube-apiserver 1.33 (our newest kubectl) and the etcd 3.5 Kubernetes 1.33 ships', () => {
    const versions = pinnedVersions();
    expect(versions.kube).to.match(/^1\.33\.\d+$/);
    expect(versions.etcd).to.match(/^3\.5\.\d+$/);
  });

  it('live in the cache dir, one folder per version, where provision-kube.sh builds them', async () => {
    const binaries = kubeBinaries(cache);
    const { kube, etcd } = pinnedVersions();
    expect(binaries.kubeApiserver).to.equal(join(cache, 'kube-apiserver', `v${kube}`, 'kube-apiserver'));
    expect(binaries.kubeControllerManager).to.equal(
      join(cache, 'kube-controller-manager', `v${kube}`, 'kube-controller-manager'),
    );
    expect(binaries.etcd).to.equal(join(cache, 'etcd', `v${etcd}`, 'etcd'));
    const script = await readFile(PROVISION_SCRIPT, 'utf8');
    expect(script).to.contain('bin_path() { echo "$cache/$1/v$2/$1"; }');
  });

  it('when missing, fail with what is missing and the command that builds them', () => {
    try {
      requireKubeBinaries(cache);
      expect.fail('requireKubeBinaries succeeded on an empty cache');
    } catch (error) {
      expect(error).to.be.instanceOf(TestEnvError);
      const { code, message, hint } = error as TestEnvError;
      const { kube, etcd } = pinnedVersions();
      expect(code).to.equal('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED');
      expect(message).to.contain(`kube-apiserver ${kube} (${join(cache, 'kube-apiserver')}`);
      expect(message).to.contain(`kube-controller-manager ${kube} (`).and.to.contain(`etcd ${etcd} (`);
      const [, script] = /; run (\S+)$/.exec(message) ?? [];
      expect(script && resolve(script), message).to.equal(PROVISION_SCRIPT);
      expect(hint).to.match(/^it builds them with Go into .*: 10 to 15 minutes on 2 idle cores the first time/);
    }
  });

  it('are found once both are there and executable', async () => {
    const binaries = kubeBinaries(cache);
    const paths = [binaries.kubeApiserver, binaries.kubeControllerManager, binaries.etcd];
    for (const path of paths) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, '#!/bin/sh\n');
    }
    expect(() => requireKubeBinaries(cache)).to.throw(
      TestEnvError,
      /not built yet: kube-apiserver .*, kube-controller-manager .*, etcd /,
    );
    await chmod(binaries.kubeApiserver, 0o755);
    await chmod(binaries.etcd, 0o755);
    expect(() => requireKubeBinaries(cache)).to.throw(
      TestEnvError,
      /not built yet: kube-controller-manager [^,]*; run /,
    );
    await chmod(binaries.kubeControllerManager, 0o755);
    expect(requireKubeBinaries(cache)).to.deep.equal(binaries);
  });
});
