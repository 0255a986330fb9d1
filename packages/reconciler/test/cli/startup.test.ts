import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadYaml } from '@kubernetes/client-node';
import { expect } from 'chai';
import { DEMO_WORLD, startEmulators, type Emulators } from '@keymaster/testenv';
import { keymaster, type Finished } from './keymaster.js';

/** A kubeconfig of one context, "main", whose cluster and user are given. */
const kubeconfigText = (server: string, user: object = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'main', cluster: { server, 'insecure-skip-tls-verify': true } }],
    contexts: [{ name: 'main', context: { cluster: 'main', user: 'main' } }],
    users: [{ name: 'main', user }],
    'current-context': 'main',
  });

/**
 * Exit 2 and, after any log line (JSON), exactly the message and its hint: as a bad flag is reported,
 * with no stack trace.
 */
function expectStartupFailure({ code, stderr }: Finished, message: string, hint: string | RegExp): void {
  const said = stderr
    .split('\n')
    .filter((line) => !line.startsWith('{'))
    .join('\n');
  expect(said, 'stderr').to.not.match(/^\s+at /m);
  const [first, second, ...rest] = said.split('\n');
  expect(first, 'stderr').to.equal(`keymaster: ${message}`);
  if (typeof hint === 'string') expect(second, 'stderr').to.equal(`hint: ${hint}`);
  else expect(second, 'stderr').to.match(hint);
  expect(rest.join(''), 'stderr after the hint').to.equal('');
  expect(code, stderr).to.equal(2);
}

describe('start-up failures: exit 2, the flag or file, the problem and the fix, no stack trace', function () {
  this.timeout(60_000);
  let dir: string;
  let emulators: Emulators;
  let good: string;
  /** The environment of a user with no kubeconfig and no AWS settings but those given. */
  let env: NodeJS.ProcessEnv;
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const run = (...args: string[]) => keymaster(['run', ...args], env);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-startup-test-'));
    good = join(dir, 'kubeconfig');
    emulators = await startEmulators({ world: DEMO_WORLD, kubeconfig: good, namespace: 'keymaster-system' });
    env = { HOME: join(dir, 'home') };
    await mkdir(env['HOME']!);
  });
  after(async () => {
    await emulators.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe('the kubeconfig', () => {
    it('missing (--kubeconfig)', async () => {
      const path = join(dir, 'nope');
      expectStartupFailure(
        await run('--kubeconfig', path),
        `--kubeconfig=${path}: the file does not exist`,
        'Pass another --kubeconfig: it must name a kubeconfig file you may read.',
      );
    });

    it('missing ($KUBECONFIG)', async () => {
      const path = join(dir, 'nope');
      expectStartupFailure(
        await keymaster(['run'], { ...env, KUBECONFIG: path }),
        `$KUBECONFIG (${path}): the file does not exist`,
        'Fix $KUBECONFIG, or pass --kubeconfig: it must name a kubeconfig file you may read.',
      );
    });

    it('none anywhere (no flag, no $KUBECONFIG, no ~/.kube/config, not in a pod)', async () => {
      expectStartupFailure(
        await run(),
        'no kubeconfig: no --kubeconfig, $KUBECONFIG unset, no ~/.kube/config, and not in a pod (no service account token)',
        'Pass --kubeconfig PATH or set $KUBECONFIG (`pnpm keymaster emulate` writes one for the emulators).',
      );
    });

    it('a directory', async () => {
      expectStartupFailure(
        await run('--kubeconfig', dir),
        `--kubeconfig=${dir}: the file is a directory, not a file`,
        'Pass another --kubeconfig: it must name a kubeconfig file you may read.',
      );
    });

    it('not YAML', async () => {
      const path = await file('garbage', 'clusters: [\n  - {name: x\n');
      const result = await run('--kubeconfig', path);
      expectStartupFailure(
        result,
        `--kubeconfig=${path}: not a kubeconfig: ${/not a kubeconfig: (.*)/.exec(result.stderr)?.[1] ?? '(no reason)'}`,
        `Pass another --kubeconfig, or check the file with \`kubectl config view --kubeconfig ${path}\`.`,
      );
      expect(result.stderr).to.match(/not a kubeconfig: .*(flow|collection|end|map|unexpected)/i);
    });

    it('YAML but not a kubeconfig (no contexts)', async () => {
      const path = await file('text', 'hello, world\n');
      expectStartupFailure(
        await run('--kubeconfig', path),
        `--kubeconfig=${path}: names no current context (current-context is empty)`,
        'It has no contexts: is it a kubeconfig? Pass another --kubeconfig.',
      );
    });

    it('no current context', async () => {
      const config = parseYaml(await readFile(good, 'utf8'));
      delete config['current-context'];
      const path = await file('no-current', JSON.stringify(config));
      expectStartupFailure(
        await run('--kubeconfig', path),
        `--kubeconfig=${path}: names no current context (current-context is empty)`,
        'Choose one with `kubectl config use-context NAME` (contexts: kube-emulator), or pass another --kubeconfig.',
      );
    });

    it('a current context that is not one of its contexts', async () => {
      const config = parseYaml(await readFile(good, 'utf8'));
      const path = await file('other-current', JSON.stringify({ ...config, 'current-context': 'prod' }));
      expectStartupFailure(
        await run('--kubeconfig', path),
        `--kubeconfig=${path}: current-context "prod" is not one of its contexts`,
        'Choose one with `kubectl config use-context NAME` (contexts: kube-emulator), or pass another --kubeconfig.',
      );
    });

    it('a context naming a cluster that is not in it', async () => {
      const config = parseYaml(await readFile(good, 'utf8'));
      const path = await file('no-cluster', JSON.stringify({ ...config, clusters: [] }));
      expectStartupFailure(
        await run('--kubeconfig', path),
        `--kubeconfig=${path}: context "kube-emulator" names the cluster "kube-emulator", which is not in the kubeconfig`,
        'Add it (`kubectl config set-cluster kube-emulator --server=https://...`) or point the context at one of its clusters.',
      );
    });

    it('the same for `keymaster plan` and `keymaster explain`', async () => {
      const path = join(dir, 'nope');
      for (const command of [
        ['plan', '-A'],
        ['explain', 'a/b'],
      ])
        expectStartupFailure(
          await keymaster([...command, '--kubeconfig', path], env),
          `--kubeconfig=${path}: the file does not exist`,
          'Pass another --kubeconfig: it must name a kubeconfig file you may read.',
        );
    });
  });

  describe('the API server, asked for its API groups at start', () => {
    let closed: string;
    before(async () => {
      // A port that was just free: nothing listens there.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closed = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
      await new Promise((resolve) => server.close(resolve));
    });

    it('refusing connections', async () => {
      const path = await file('refused', kubeconfigText(closed));
      expectStartupFailure(
        await run('--kubeconfig', path),
        `the API server ${closed} (kubeconfig context "main") cannot be reached: request to ${closed}/apis failed, reason: connect ECONNREFUSED ${closed.slice('https://'.length)}`,
        'Check that the cluster runs and that this host can reach that address (DNS, firewall, proxy, certificate); with the emulators, start `pnpm keymaster emulate` first and use the kubeconfig it writes.',
      );
    });

    it('a host name that does not resolve', async () => {
      const path = await file('dns', kubeconfigText('https://api.keymaster-test.invalid:6443'));
      const result = await run('--kubeconfig', path);
      expectStartupFailure(
        result,
        `the API server https://api.keymaster-test.invalid:6443 (kubeconfig context "main") cannot be reached: request to https://api.keymaster-test.invalid:6443/apis failed, reason: getaddrinfo ${/getaddrinfo (\w+)/.exec(result.stderr)?.[1]} api.keymaster-test.invalid`,
        /^hint: Check that the cluster runs and that this host can reach that address \(DNS, /,
      );
      expect(result.stderr).to.match(/getaddrinfo (ENOTFOUND|EAI_AGAIN)/);
    });

    it("refusing the kubeconfig's credentials (401)", async () => {
      // A service-account token of the emulator's issuer whose signature is not its own: refused.
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const forged = `${part({ alg: 'RS256', kid: 'forged' })}.${part({ iss: emulators.kube.url, sub: 'system:serviceaccount:a:b' })}.AAAA`;
      const path = await file('bad-token', kubeconfigText(emulators.kube.url, { token: forged }));
      expectStartupFailure(
        await run('--kubeconfig', path),
        `the API server ${emulators.kube.url} (kubeconfig context "main") refused the kubeconfig's credentials (401)`,
        'Renew or fix the user of that context (token, client certificate, exec plugin): `kubectl get --raw /apis --kubeconfig ...` shows the same refusal.',
      );
    });

    it('the same for `keymaster plan`', async () => {
      const path = await file('refused', kubeconfigText(closed));
      const result = await keymaster(['plan', '-A', '--kubeconfig', path], env);
      expectStartupFailure(
        result,
        `the API server ${closed} (kubeconfig context "main") cannot be reached: request to ${closed}/apis failed, reason: connect ECONNREFUSED ${closed.slice('https://'.length)}`,
        /^hint: Check that the cluster runs/,
      );
    });
  });

  describe('the addresses to serve on', () => {
    let busy: Server;
    let port: number;
    before(async () => {
      busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      port = (busy.address() as { port: number }).port;
    });
    after(() => new Promise((resolve) => busy.close(resolve)));

    for (const flag of ['metrics-bind-address', 'health-probe-bind-address'])
      it(`--${flag} on a port in use (EADDRINUSE)`, async () => {
        const other = flag === 'metrics-bind-address' ? 'health-probe-bind-address' : 'metrics-bind-address';
        expectStartupFailure(
          await run('--kubeconfig', good, `--${flag}`, `127.0.0.1:${port}`, `--${other}`, '0'),
          `--${flag}=127.0.0.1:${port}: port ${port} is in use by another process (EADDRINUSE)`,
          `Stop that process (\`ss -ltnp 'sport = :${port}'\` names it) or choose a free port, e.g. --${flag}=:0 for any; 0 turns it off.`,
        );
      });
  });
});

/** The kubeconfig the emulators write, as an object. */
function parseYaml(text: string): Record<string, unknown> {
  return loadYaml<Record<string, unknown>>(text);
}
