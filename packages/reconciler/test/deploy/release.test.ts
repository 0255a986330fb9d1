import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { parse } from 'yaml';
import { recordedReleases } from '@keymaster/testenv';
import { KEYMASTER_VERSION } from '../../src/version.js';
import { ROOT, readManifests, readText } from './repo.js';

/** A file of the tree at `commit`, from this clone's history; undefined when the commit lacks it. */
function fileAt(commit: string, path: string): string | undefined {
  try {
    return execFileSync('git', ['show', `${commit}:${path}`], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr);
    if (/does not exist in|exists on disk, but not in/.test(stderr)) return undefined;
    throw new Error(`git show ${commit}:${path} failed (a shallow clone? git fetch --unshallow): ${stderr.trim()}`, {
      cause: error,
    });
  }
}

/** The `## [x.y.z] - date` sections of CHANGELOG.md, newest first, and the text of [Unreleased]. */
function changelog(): { released: string[]; unreleased: string } {
  const text = readText('CHANGELOG.md');
  const released = [...text.matchAll(/^## \[(\d+\.\d+\.\d+)\] - /gm)].map((match) => match[1]!);
  const unreleased = /^## \[Unreleased\]\n([\s\S]*?)^## /m.exec(text)?.[1] ?? '';
  return { released, unreleased: unreleased.trim() };
}

/** Everywhere the release's version is written: each must say the same as packages/reconciler/package.json. */
describe('the release version', () => {
  const version = KEYMASTER_VERSION;

  it('is the reconciler package.json version, a semantic version', () => {
    expect(version).to.match(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect((JSON.parse(readText('packages/reconciler/package.json')) as { version: string }).version).to.equal(version);
  });

  it('is the root package.json version', () => {
    expect((JSON.parse(readText('package.json')) as { version?: string }).version).to.equal(version);
  });

  it("is the Helm chart's version and appVersion (the image tag it defaults to)", () => {
    const chart = parse(readText('deploy/helm/keymaster/Chart.yaml')) as { version: string; appVersion: string };
    expect(chart.version).to.equal(version);
    expect(chart.appVersion).to.equal(version);
  });

  it("is the Dockerfile's VERSION (the OCI version label) and the Kustomize Deployment's image tag", () => {
    expect(readText('Dockerfile')).to.match(new RegExp(`^ARG VERSION=${version.replaceAll('.', '\\.')}$`, 'm'));
    const [deployment] = readManifests('deploy/manager/deployment.yaml') as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    }[];
    expect(deployment!.spec.template.spec.containers[0]!.image).to.equal(`keymaster:${version}`);
  });

  it('has its section in CHANGELOG.md, first below Unreleased, in Keep a Changelog form', () => {
    const headings = [...readText('CHANGELOG.md').matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)].map((match) => ({
      release: match[1],
      date: match[2],
    }));
    const releases = headings.filter((heading) => heading.release !== 'Unreleased');
    expect(releases[0]?.release, 'the newest release in CHANGELOG.md').to.equal(version);
    for (const { release, date } of releases) expect(date, `## [${release}]'s date`).to.match(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('is recorded in releases.json, or this tree is its release ([Unreleased] empty)', () => {
    const recorded = recordedReleases().map(([release]) => release);
    if (recorded.includes(version)) return;
    expect(
      changelog().unreleased,
      `${version} is not in releases.json, yet CHANGELOG.md's [Unreleased] has changes: record the release's commit`,
    ).to.equal('');
  });
});

/**
 * releases.json, version -> commit, is how a release is recorded (CHANGELOG.md's header says how):
 * the upgrade e2e runs the previous release from there, and CI clones may carry no tags.
 */
describe('the recorded releases (releases.json)', () => {
  const releases = recordedReleases();

  it('record every release CHANGELOG.md names, and only those, but the one this tree may be', () => {
    const { released, unreleased } = changelog();
    const unrecorded = released.filter((release) => !releases.some(([recorded]) => recorded === release));
    // The release commit cannot hold its own hash: it is recorded by the commit after it.
    expect(unrecorded, 'released in CHANGELOG.md, not in releases.json').to.deep.equal(
      unreleased === '' && unrecorded[0] === KEYMASTER_VERSION ? [KEYMASTER_VERSION] : [],
    );
    expect(releases.map(([release]) => release).filter((release) => !released.includes(release))).to.deep.equal([]);
  });

  it("each at a commit whose package.json carries the release's version", () => {
    for (const [release, commit] of releases) {
      const reconciler = fileAt(commit, 'packages/reconciler/package.json');
      expect(reconciler, `${commit} of ${release} has no packages/reconciler/package.json`).to.be.a('string');
      expect((JSON.parse(reconciler!) as { version: string }).version, `${release} at ${commit}`).to.equal(release);
      // The root package.json has said the version too since 0.2.0.
      const root = JSON.parse(fileAt(commit, 'package.json')!) as { version?: string };
      if (root.version !== undefined) expect(root.version, `${release} at ${commit}, package.json`).to.equal(release);
    }
  });

  it("agree with the clone's tags vX.Y.Z where it has them", () => {
    for (const [release, commit] of releases) {
      const tagged = execFileSync('git', ['tag', '--list', `v${release}`, '--format=%(objectname) %(*objectname)'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).trim();
      if (tagged !== '') expect(tagged.split(' ').filter(Boolean).pop(), `tag v${release}`).to.equal(commit);
    }
  });
});
