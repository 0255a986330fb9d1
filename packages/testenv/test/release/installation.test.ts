import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestEnvError } from '../../src/errors.js';
import {
  RELEASE_PROVISION_SCRIPT,
  recordedReleases,
  releaseTree,
  requireRelease,
} from '../../src/release/installation.js';

const COMMIT = 'a'.repeat(40);

describe('the recorded releases and their provisioned trees', () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-release-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  it('reads releases.json newest first, by version number', () => {
    const text = JSON.stringify({ '0.9.0': COMMIT, '0.10.0': 'b'.repeat(40), '0.2.1': 'c'.repeat(40) });
    expect(recordedReleases(text).map(([version]) => version)).to.deep.equal(['0.10.0', '0.9.0', '0.2.1']);
  });

  it('refuses what is not a version and a full commit hash', () => {
    expect(() => recordedReleases(JSON.stringify({ '0.2.0': '2c5717c' }))).to.throw(/"0.2.0": "2c5717c" is not/);
    expect(() => recordedReleases(JSON.stringify({ v1: COMMIT }))).to.throw(/"v1"/);
    expect(() => recordedReleases('[]')).to.throw(/must be an object/);
  });

  it('puts a release in the cache dir keyed by its commit, where provision-release.sh extracts it', async () => {
    const [version, commit] = recordedReleases()[0]!;
    const tree = releaseTree(version, cache);
    expect(tree).to.deep.include({ version, commit, dir: join(cache, 'releases', commit) });
    expect(tree.deploy).to.equal(join(tree.dir, 'deploy'));
    const script = await readFile(RELEASE_PROVISION_SCRIPT, 'utf8');
    expect(script).to.contain('dir="$cache/releases/$commit"');
    expect(script).to.contain('echo "$commit" >"$dir/.keymaster-release"');
  });

  it('when not provisioned (or not finished), fails with the command that provisions it', async () => {
    const [version, commit] = recordedReleases()[0]!;
    const attempt = () => requireRelease(version, cache);
    expect(attempt).to.throw(TestEnvError, `bash ${RELEASE_PROVISION_SCRIPT} ${version}`);
    // A tree whose install did not finish has no marker, or another commit's.
    await mkdir(join(cache, 'releases', commit), { recursive: true });
    await writeFile(join(cache, 'releases', commit, '.keymaster-release'), `${COMMIT}\n`);
    expect(attempt).to.throw(TestEnvError, 'is not provisioned');
    await writeFile(join(cache, 'releases', commit, '.keymaster-release'), `${commit}\n`);
    expect(attempt()).to.deep.include({ version, commit });
  });

  it('refuses a version releases.json does not record', () => {
    expect(() => releaseTree('0.0.1', cache)).to.throw(/release 0.0.1 is not recorded in .*releases.json/);
  });
});
