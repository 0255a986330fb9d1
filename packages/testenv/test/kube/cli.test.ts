import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinnedVersions } from '../../src/kube/binaries.js';
import { startCli } from './helpers/cli.js';

describe('the real-kube command, before anything starts', function () {
  this.timeout(20_000);

  it('requires --kubeconfig and refuses unknown flags', async () => {
    const noKubeconfig = startCli([]);
    expect(await noKubeconfig.exit).to.equal(2);
    expect(noKubeconfig.stderr()).to.contain('real-kube: --kubeconfig is required\nhint: pass the path');
    const unknown = startCli(['--port', '6443']);
    expect(await unknown.exit).to.equal(2);
    expect(unknown.stderr()).to.contain("Unknown option '--port'").and.to.contain('usage: real-kube --kubeconfig PATH');
  });

  it('refuses to start unprovisioned, naming the missing binaries and the command that builds them', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'testenv-empty-cache-'));
    try {
      const cli = startCli(['--kubeconfig', join(cache, 'kubeconfig')], { ...process.env, XDG_CACHE_HOME: cache });
      expect(await cli.exit).to.equal(2);
      const { kube, etcd } = pinnedVersions();
      expect(cli.stderr())
        .to.contain(`real-kube: not built yet: kube-apiserver ${kube}`)
        .and.to.contain(`etcd ${etcd}`);
      expect(cli.stderr()).to.match(
        /; run \S*scripts\/provision-kube\.sh \d+\.\d+\nhint: it builds them with Go into /,
      );
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
