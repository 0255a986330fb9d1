import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TestEnvError } from '../../src/errors.js';
import {
  kubeBinaries,
  pinnedVersions,
  PROVISION_SCRIPT,
  requireKubeBinaries,
  supportedVersions,
} from '../../src/kube/binaries.js';

describe('the kube binaries', () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  it('are pinned for the supported minors, newest first: Kubernetes 1.37 and 1.35, each with the etcd it ships', () => {
    expect(supportedVersions().map(({ kube }) => kube.split('.').slice(0, 2).join('.'))).to.deep.equal([
      '1.37',
      '1.35',
    ]);
    const [newest, oldest] = supportedVersions();
    expect(newest!.etcd).to.match(/^3\.7\.\d+$/);
    expect(oldest!.etcd).to.match(/^3\.6\.\d+$/);
  });

  it('read one line per version, comments and blank lines apart, and refuse a line that is not two versions', () => {
    const text = '# kubernetes etcd\n\n1.40.1   3.9.0  # the newest\n1.38.0 3.8.2\n';
    expect(supportedVersions(text)).to.deep.equal([
      { kube: '1.40.1', etcd: '3.9.0' },
      { kube: '1.38.0', etcd: '3.8.2' },
    ]);
    expect(() => supportedVersions('1.40.1\n')).to.throw('"1.40.1" is not "KUBERNETES_VERSION ETCD_VERSION"');
    expect(() => supportedVersions('1.40 3.9.0\n')).to.throw('"1.40 3.9.0" is not');
    expect(() => supportedVersions('# nothing\n')).to.throw('lists no version');
  });

  it('run at the newest by default, at the minor or version KEYMASTER_KUBE_VERSION names, and refuse any other', () => {
    const supported = supportedVersions('1.40.1 3.9.0\n1.38.0 3.8.2\n');
    expect(pinnedVersions({}, supported)).to.deep.equal({ kube: '1.40.1', etcd: '3.9.0' });
    expect(pinnedVersions({ KEYMASTER_KUBE_VERSION: '' }, supported).kube).to.equal('1.40.1');
    expect(pinnedVersions({ KEYMASTER_KUBE_VERSION: '1.38' }, supported).kube).to.equal('1.38.0');
    expect(pinnedVersions({ KEYMASTER_KUBE_VERSION: '1.38.0' }, supported).kube).to.equal('1.38.0');
    for (const wanted of ['1.39', '1.3', '1.38.1', 'latest']) {
      expect(() => pinnedVersions({ KEYMASTER_KUBE_VERSION: wanted }, supported), wanted)
        .to.throw(TestEnvError, `KEYMASTER_KUBE_VERSION="${wanted}" is not a supported Kubernetes version`)
        .with.property('code', 'ERR_KEYMASTER_TESTENV_KUBE_VERSION');
    }
    expect(() => pinnedVersions({ KEYMASTER_KUBE_VERSION: '1.39' }, supported)).to.throw('use one of 1.40, 1.38');
  });

  it('live in the cache dir, one folder per binary and version, where provision-kube.sh builds them', async () => {
    const version = { kube: '1.38.0', etcd: '3.8.2' };
    const binaries = kubeBinaries(cache, version);
    expect(binaries).to.deep.equal({
      kubeVersion: '1.38.0',
      etcdVersion: '3.8.2',
      kubeApiserver: join(cache, 'kube-apiserver', 'v1.38.0', 'kube-apiserver'),
      kubeControllerManager: join(cache, 'kube-controller-manager', 'v1.38.0', 'kube-controller-manager'),
      kubectl: join(cache, 'kubectl', 'v1.38.0', 'kubectl'),
      etcd: join(cache, 'etcd', 'v3.8.2', 'etcd'),
    });
    expect(kubeBinaries(cache).kubeVersion).to.equal(pinnedVersions().kube);
    const script = await readFile(PROVISION_SCRIPT, 'utf8');
    expect(script).to.contain('bin_path() { echo "$cache/$1/v$2/$1"; }');
  });

  it('when missing, fail with what is missing and the command that builds that minor', () => {
    const version = { kube: '1.38.0', etcd: '3.8.2' };
    try {
      requireKubeBinaries(cache, version);
      expect.fail('requireKubeBinaries succeeded on an empty cache');
    } catch (error) {
      expect(error).to.be.instanceOf(TestEnvError);
      const { code, message, hint } = error as TestEnvError;
      expect(code).to.equal('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED');
      expect(message).to.contain(`kube-apiserver 1.38.0 (${join(cache, 'kube-apiserver')}`);
      expect(message)
        .to.contain('kube-controller-manager 1.38.0 (')
        .and.to.contain('kubectl 1.38.0 (')
        .and.to.contain('etcd 3.8.2 (');
      const [, script, minor] = /; run (\S+) (\S+)$/.exec(message) ?? [];
      expect(script && resolve(script), message).to.equal(PROVISION_SCRIPT);
      expect(minor).to.equal('1.38');
      expect(hint).to.match(/^it builds them with Go into .*: 10 to 15 minutes on 2 idle cores the first time/);
    }
  });

  it('are found once all four are there and executable', async () => {
    const binaries = kubeBinaries(cache);
    const paths = [binaries.kubeApiserver, binaries.kubeControllerManager, binaries.kubectl, binaries.etcd];
    for (const path of paths) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, '#!/bin/sh\n');
    }
    expect(() => requireKubeBinaries(cache)).to.throw(
      TestEnvError,
      /not built yet: kube-apiserver .*, kube-controller-manager .*, kubectl .*, etcd /,
    );
    await chmod(binaries.kubeApiserver, 0o755);
    await chmod(binaries.etcd, 0o755);
    await chmod(binaries.kubectl, 0o755);
    expect(() => requireKubeBinaries(cache)).to.throw(
      TestEnvError,
      /not built yet: kube-controller-manager [^,]*; run /,
    );
    await chmod(binaries.kubeControllerManager, 0o755);
    expect(requireKubeBinaries(cache)).to.deep.equal(binaries);
  });
});
