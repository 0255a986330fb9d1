import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig, VersionApi, CoreV1Api } from '@kubernetes/client-node';
import { pinnedVersions } from '@keymaster/testenv';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = join(ROOT, 'packages/devtools/src/cli/main.ts');

describe('keymaster emulate --backend real', function () {
  this.timeout(180_000);
  let dir: string;
  let child: ChildProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-emulate-real-'));
  });
  // A failed assertion must not leave kube-apiserver and etcd running: mocha would wait on them forever.
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a real kube-apiserver with the CRDs and the namespace, and the aws-emulator, until SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const args = ['--import', 'tsx', '--conditions=@keymaster/source', MAIN, 'emulate', '--backend', 'real'];
    const emulate = spawn(process.execPath, [...args, '--kubeconfig', kubeconfig], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = emulate;
    const exited = new Promise<number | null>((resolve) => emulate.on('close', resolve));
    let stdout = '';
    let stderr = '';
    emulate.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      emulate.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Ctrl-C stops kube-apiserver, etcd and the aws-emulator.')) resolve();
      });
      emulate.once('close', () => reject(new Error(`emulate exited early:\n${stdout}\n${stderr}`)));
    });
    expect(stdout).to.match(/^kube-apiserver https:\/\/127\.0\.0\.1:\d+ /m);

    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfig);
    const version = await kubeConfig.makeApiClient(VersionApi).getCode();
    // The Kubernetes this run provisions (KEYMASTER_KUBE_VERSION, else the newest supported).
    expect(version.gitVersion).to.equal(`v${pinnedVersions().kube}`);
    const namespace = await kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: 'keymaster-system' });
    expect(namespace.metadata?.name).to.equal('keymaster-system');
    const clusters = (await kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
      group: 'infrastructure.keymaster.dev',
      version: 'v1beta1',
      plural: 'awsclusters',
    })) as { items: unknown[] };
    expect(clusters.items).to.deep.equal([]);

    emulate.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
