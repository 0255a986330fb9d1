import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PNPM = join(ROOT, 'node_modules/.bin/pnpm');
const MAIN = join(ROOT, 'packages/devtools/src/cli/main.ts');

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[]): Promise<Finished> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** `keymaster` as `pnpm keymaster` runs it: tsx on the sources. */
const keymaster = (...args: string[]) => ['--import', 'tsx', '--conditions=@keymaster/source', MAIN, ...args];

describe('keymaster demo and emulate (the CLI)', function () {
  this.timeout(90_000);

  it('`pnpm keymaster demo --once` exits 0 once converged and says what it cost', async () => {
    const { code, stdout, stderr } = await run(PNPM, ['--silent', 'keymaster', 'demo', '--once']);
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^Converged in [\d.]+ s: 3 of 4 clusters Ready, 1 refused\.$/m);
    const sts = /^STS calls: {2}(\d+) .*; minimum (\d+) /m.exec(stdout);
    expect(sts, stdout).not.to.equal(null);
    expect(sts![1]).to.equal(sts![2]);
    const tags = /^Tag writes: (\d+) calls? for \d+ resources changed; minimum (\d+)$/m.exec(stdout);
    expect(tags, stdout).not.to.equal(null);
    expect(tags![1]).to.equal(tags![2]);
    expect(stdout).to.match(
      /^ {2}tenant-c\/reporting-prod: PrincipalUsageUnauthorized: namespace "tenant-c" may not use/m,
    );
    expect(stdout).not.to.include('\x1b');
  });

  it('`pnpm keymaster demo --cluster-api --once` governs the CAPA fleet of deploy/examples/cluster-api', async function () {
    this.timeout(300_000);
    const { code, stdout, stderr } = await run(PNPM, ['--silent', 'keymaster', 'demo', '--cluster-api', '--once']);
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^Converged in [\d.]+ s: 3 of 3 clusters Ready, 0 refused\.$/m);
    expect(stdout).to.match(/^Conflicts: {2}1$/m);
  });

  it("`pnpm demo` on a terminal: shows drift made and corrected; Ctrl-C stops it, says where the log is, exits 0 without pnpm's ELIFECYCLE", async () => {
    // A terminal of 200 columns (script(1) gives the demo a pseudo-terminal); Ctrl-C is typed into it.
    const child = spawn('script', ['-qfec', `stty cols 200 rows 60; ${PNPM} demo --sync-period 1s`, '/dev/null'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let typed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (typed || !output.includes('Drift:      corrected')) return;
      typed = true;
      child.stdin.write('\x03');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const tail = output.slice(-2000);
    expect(output).to.match(/Drift: {6}Drifted\. Keymaster sets it back at its next sync \(--sync-period 1s\):/);
    expect(code, tail).to.equal(0);
    expect(output).to.not.include('ELIFECYCLE');
    const log = /Stopped\. The controller's log is kept: (\S+)/.exec(output)?.[1];
    expect(log, output).to.be.a('string');
    expect(existsSync(log!)).to.equal(true);
    await rm(join(log!, '..'), { recursive: true, force: true });
  });

  it('`keymaster demo` refuses a bad flag with exit code 2, naming it', async () => {
    const { code, stderr } = await run(process.execPath, keymaster('demo', '--timeout', 'soon'));
    expect(code).to.equal(2);
    expect(stderr).to.include('--timeout="soon"').and.include('Go duration');
  });

  describe('keymaster emulate', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'keymaster-emulate-test-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('serves both emulators, prints what a controller needs, and exits 0 on SIGTERM', async () => {
      const kubeconfig = join(dir, 'kubeconfig');
      const child = spawn(process.execPath, keymaster('emulate', '--kubeconfig', kubeconfig), {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      let stdout = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('Ctrl-C stops both emulators.')) resolve();
        });
        child.once('close', () => reject(new Error(`emulate exited early:\n${stdout}`)));
      });
      const env = Object.fromEntries(
        [...stdout.matchAll(/^export (\w+)=(\S+)$/gm)].map(([, name, value]) => [name!, value!]),
      );
      expect(env).to.include({ KUBECONFIG: kubeconfig, AWS_REGION: 'us-east-1' });
      expect(stdout).to.include(`pnpm keymaster run --kubeconfig ${kubeconfig} `);

      // The management cluster: the controller's namespace and the CRDs are there.
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(env['KUBECONFIG']!);
      const namespace = await kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: 'keymaster-system' });
      expect(namespace.metadata?.name).to.equal('keymaster-system');
      const clusters = (await kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
        group: 'infrastructure.keymaster.dev',
        version: 'v1beta1',
        plural: 'awsclusters',
      })) as { items: unknown[] };
      expect(clusters.items).to.deep.equal([]);

      // AWS: the printed keys are the controller's.
      const sts = new STSClient({
        endpoint: env['AWS_ENDPOINT_URL']!,
        region: env['AWS_REGION']!,
        credentials: { accessKeyId: env['AWS_ACCESS_KEY_ID']!, secretAccessKey: env['AWS_SECRET_ACCESS_KEY']! },
      });
      const caller = await sts.send(new GetCallerIdentityCommand({}));
      sts.destroy();
      expect(stdout).to.include(`it acts as ${caller.Arn!}`);
      expect(caller.Arn).to.equal('arn:aws:iam::111111111111:user/keymaster-controller');

      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(existsSync(kubeconfig), 'a kubeconfig the user asked for is kept').to.equal(true);
    });

    it('says so when it cannot write the kubeconfig, with exit code 2', async () => {
      const { code, stderr } = await run(
        process.execPath,
        keymaster('emulate', '--kubeconfig', join(dir, 'missing', 'kubeconfig')),
      );
      expect(code).to.equal(2);
      expect(stderr).to.include(`cannot write the kubeconfig to ${join(dir, 'missing', 'kubeconfig')}`);
    });

    it('refuses a port that is not one, with exit code 2', async () => {
      const { code, stderr } = await run(process.execPath, keymaster('emulate', '--aws-port', '70000'));
      expect(code).to.equal(2);
      expect(stderr).to.include('--aws-port="70000": is not a port');
    });

    it('names a --world that does not exist, with a hint and exit code 2, no stack trace', async () => {
      const path = join(dir, 'no-world.yaml');
      const { code, stderr } = await run(process.execPath, keymaster('emulate', '--world', path));
      expect(stderr).to.not.match(/^\s+at /m);
      expect(stderr).to.match(new RegExp(`^keymaster: .*${path.replaceAll('/', '\\/')}.*\nhint: .+\n$`));
      expect(code, stderr).to.equal(2);
    });
  });
});
