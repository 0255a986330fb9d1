import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { CRDS } from './helpers/emulator.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function startCli(args: string[]) {
  const child = spawn(process.execPath, ['--conditions=@keymaster/source', '--import', 'tsx', CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // A child that dies before its first line fails the test at once, with what it printed.
  const firstLine = Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
    exit.then((code) => Promise.reject(new Error(`exited with ${String(code)} before printing: ${stderr}`))),
  ]);
  firstLine.catch(() => undefined);
  return { child, firstLine, exit, stderr: () => stderr };
}

describe('the kube-emulator command', function () {
  this.timeout(20_000);

  it('prints its address first, writes a kubeconfig, serves the CRDs and stops on SIGTERM', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kube-emulator-cli-')), 'config');
    const cli = startCli(['--port', '0', '--host', '127.0.0.1', '--kubeconfig', kubeconfig, '--crds', CRDS]);
    const line = await cli.firstLine;
    expect(line).to.match(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    expect(existsSync(kubeconfig)).to.equal(true);
    expect(readFileSync(kubeconfig, 'utf8')).to.contain(`server: ${url}`);
    const response = await fetch(`${url}/apis/infrastructure.keymaster.dev/v1beta1/awsclusters`);
    expect(response.status).to.equal(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).to.equal(0);
  });

  it('serves HTTPS with --tls, and stops on SIGINT', async () => {
    const cli = startCli(['--port', '0', '--tls']);
    expect(await cli.firstLine).to.match(/^listening on https:\/\/127\.0\.0\.1:\d+$/);
    cli.child.kill('SIGINT');
    expect(await cli.exit).to.equal(0);
  });

  it("takes kube-apiserver's service-account flags: issuer, JWKS URI, API audiences, maximum expiration", async () => {
    const cli = startCli([
      '--service-account-issuer',
      'https://oidc.example.com',
      '--service-account-jwks-uri',
      'https://oidc.example.com/keys',
      '--api-audiences',
      'api,other',
      '--service-account-max-token-expiration',
      '1h30m',
    ]);
    const url = (await cli.firstLine).slice('listening on '.length);
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    const answer = await post('/api/v1/namespaces/default/serviceaccounts/robot/token', {
      spec: { expirationSeconds: 86400 },
    });
    const { spec } = (await answer.json()) as { spec: unknown };
    expect(spec).to.deep.equal({ audiences: ['api', 'other'], expirationSeconds: 5400, boundObjectRef: null });
    const discovery = (await (await fetch(`${url}/.well-known/openid-configuration`)).json()) as object;
    expect(discovery).to.include({ issuer: 'https://oidc.example.com', jwks_uri: 'https://oidc.example.com/keys' });
    cli.child.kill('SIGTERM');
    expect(await cli.exit).to.equal(0);
    const badDuration = startCli(['--service-account-max-token-expiration', '2d']);
    expect(await badDuration.exit).to.equal(2);
    expect(badDuration.stderr()).to.contain('must be a duration such as 48h or 90m, not "2d"');
  });

  it('explains bad flags and bad folders', async () => {
    const badPort = startCli(['--port', 'seventy']);
    expect(await badPort.exit).to.equal(2);
    expect(badPort.stderr()).to.contain('--port must be a number from 0 to 65535');
    const badFolder = startCli(['--crds', '/nonexistent/crds']);
    expect(await badFolder.exit).to.equal(2);
    expect(badFolder.stderr()).to.contain('cannot read the CRD folder /nonexistent/crds').and.to.contain('hint:');
  });
});
