import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli } from './helpers/cli.js';
import { kubectl } from './helpers/kubectl.js';
import { argumentOf, eventually, isAlive, processesWithArgument } from './helpers/processes.js';

const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));

/** kube-apiserver and etcd as started for the server at `url`, found by their command lines, and their folder. */
function serversOf(url: string): { kubeApiserver: number; etcd: number; dir: string } {
  const [kubeApiserver] = processesWithArgument(`--service-account-issuer=${url}`);
  expect(kubeApiserver, `a kube-apiserver for ${url}`).to.be.a('number');
  const etcdUrl = argumentOf(kubeApiserver!, 'etcd-servers')!;
  const [etcd] = processesWithArgument(`--listen-client-urls=${etcdUrl}`);
  expect(etcd, `an etcd at ${etcdUrl}`).to.be.a('number');
  return { kubeApiserver: kubeApiserver!, etcd: etcd!, dir: dirname(argumentOf(kubeApiserver!, 'cert-dir')!) };
}

describe('the real-kube command', function () {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'testenv-real-cli-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('prints its address first, writes an admin kubeconfig, sets up the cluster and stops everything on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const cli = startCli(['--kubeconfig', kubeconfig, '--crds', CRDS]);
    const line = await cli.firstLine;
    expect(line).to.match(/^listening on https:\/\/127\.0\.0\.1:\d+$/);
    const servers = serversOf(line.slice('listening on '.length));
    expect(await kubectl(kubeconfig, ['get', 'namespace', 'keymaster-system', '-o', 'name'])).to.include({
      stdout: 'namespace/keymaster-system\n',
      code: 0,
    });
    const crd = await kubectl(kubeconfig, ['get', 'crd', 'awsclusters.infrastructure.keymaster.dev', '-o', 'name']);
    expect(crd).to.include({ code: 0 });
    expect(await kubectl(kubeconfig, ['auth', 'can-i', '*', '*'])).to.include({ stdout: 'yes\n', code: 0 });
    expect(cli.stderr()).to.contain('real-kube: kube-apiserver ready on');
    cli.child.kill('SIGTERM');
    expect(await cli.exit).to.equal(0);
    expect(isAlive(servers.kubeApiserver), 'kube-apiserver').to.equal(false);
    expect(isAlive(servers.etcd), 'etcd').to.equal(false);
    expect(existsSync(servers.dir), servers.dir).to.equal(false);
  });

  it('leaves no server running when it is killed with SIGKILL, kube-controller-manager included', async () => {
    const cli = startCli(['--kubeconfig', join(dir, 'kubeconfig'), '--controller-manager']);
    const servers = serversOf((await cli.firstLine).slice('listening on '.length));
    const [controllerManager] = processesWithArgument(`--kubeconfig=${servers.dir}/kube-controller-manager.kubeconfig`);
    expect(controllerManager, 'a kube-controller-manager').to.be.a('number');
    cli.child.kill('SIGKILL');
    await cli.exit;
    await eventually(() => {
      expect(isAlive(servers.kubeApiserver), 'kube-apiserver').to.equal(false);
      expect(isAlive(servers.etcd), 'etcd').to.equal(false);
      expect(isAlive(controllerManager!), 'kube-controller-manager').to.equal(false);
    });
    // Nothing ran to remove the folder: only the servers are guaranteed gone.
    await rm(servers.dir, { recursive: true, force: true });
  });
});
