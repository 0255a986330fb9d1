import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/provision-node.sh', import.meta.url));
const VERSIONS = fileURLToPath(new URL('../../node-versions.env', import.meta.url));

// Stands in for npm: logs its arguments; `pack` writes, in the current folder, a package whose bin/node
// reports $FAKE_NODE_VERSION, and prints its file name, as `npm pack --silent` does; $FAKE_NPM_FAILS fails it.
const FAKE_NPM = `#!/bin/sh
echo "$*" >>"$FAKE_NPM_LOG"
case "$1" in
  config) echo https://registry.example/ ;;
  pack)
    [ -z "$FAKE_NPM_FAILS" ] || { echo "npm error 404 Not Found" >&2; exit 1; }
    mkdir -p package/bin
    printf '#!/bin/sh\\necho v%s\\n' "$FAKE_NODE_VERSION" >package/bin/node
    chmod +x package/bin/node
    echo licence >package/LICENSE
    tar -czf fake-node.tgz package && rm -rf package
    echo fake-node.tgz ;;
esac
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('provision-node.sh', () => {
  let scratch: string;
  let cache: string;
  let npmLog: string;
  let version: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    version = /^NODE_LTS_VERSION=(\S+)$/m.exec(await readFile(VERSIONS, 'utf8'))![1]!;
    scratch = await mkdtemp(join(tmpdir(), 'testenv-provision-node-'));
    cache = join(scratch, 'cache');
    npmLog = join(scratch, 'npm.log');
    await mkdir(join(scratch, 'bin'));
    await writeFile(join(scratch, 'bin', 'npm'), FAKE_NPM);
    await chmod(join(scratch, 'bin', 'npm'), 0o755);
    await writeFile(npmLog, '');
    env = {
      PATH: `${join(scratch, 'bin')}:${process.env.PATH}`,
      XDG_CACHE_HOME: cache,
      FAKE_NPM_LOG: npmLog,
      FAKE_NODE_VERSION: version,
    };
  });
  afterEach(() => rm(scratch, { recursive: true, force: true }));

  function provision(...args: string[]): Promise<Run> {
    return new Promise((resolve) =>
      execFile('bash', [SCRIPT, ...args], { env }, (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
      ),
    );
  }

  const binDir = () => join(cache, 'keymaster', 'testenv', 'node', `v${version}`, 'bin');
  const npmCalls = async () => (await readFile(npmLog, 'utf8')).split('\n').filter(Boolean);

  it('pins one exact Node.js version', () => {
    expect(version).to.match(/^\d+\.\d+\.\d+$/);
  });

  it("fetches this platform's node package at the pinned version, and prints the folder to put on PATH", async () => {
    const { code, stdout, stderr } = await provision();
    expect(code, stderr).to.equal(0);
    expect(stdout.trimEnd().split('\n').at(-1)).to.equal(binDir());
    expect((await npmCalls()).filter((call) => call.startsWith('pack'))).to.deep.equal([
      `pack --silent ${process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${process.platform}-${process.arch}@${version}`,
    ]);
    expect(execFileSync(join(binDir(), 'node'), { encoding: 'utf8' }).trim()).to.equal(`v${version}`);
    expect(await readFile(join(binDir(), '..', 'LICENSE'), 'utf8')).to.equal('licence\n');
  });

  it('keeps a binary that reports the pinned version: a second run asks npm nothing', async () => {
    expect((await provision()).code).to.equal(0);
    await writeFile(npmLog, '');
    const again = await provision();
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout.trim()).to.equal(binDir());
    expect(again.stderr).to.contain(`Node.js ${version}: already fetched`);
    expect(await npmCalls()).to.deep.equal([]);
  });

  it('fails, naming both versions, when the fetched binary reports another version, and keeps none', async () => {
    env.FAKE_NODE_VERSION = '1.2.3';
    const { code, stderr } = await provision();
    expect(code).to.equal(1);
    expect(stderr).to.match(
      new RegExp(`provision-node: the node of node-\\S+@${version} does not report v${version} but 'v1\\.2\\.3'\n$`),
    );
    expect(existsSync(join(binDir(), 'node')), 'bin/node').to.equal(false);
  });

  it('fails with what to check when npm cannot fetch the package, leaving nothing half-made', async () => {
    env.FAKE_NPM_FAILS = '1';
    const { code, stderr } = await provision();
    expect(code).to.equal(1);
    expect(stderr).to.match(/provision-node: npm could not fetch node-\S+@\S+: check the network or the registry/);
    expect(readdirSync(join(binDir(), '..')).filter((entry) => entry !== '.install.lock')).to.deep.equal([]);
  });

  it('prints the folder with --path, fetching nothing, and refuses other arguments', async () => {
    const path = await provision('--path');
    expect(path.stdout.trim()).to.equal(binDir());
    expect(await npmCalls()).to.deep.equal([]);
    const wrong = await provision('--fetch');
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.equal(
      "provision-node: unknown argument '--fetch': run it with no argument (fetch) or with --path (print where node goes)\n",
    );
  });
});
