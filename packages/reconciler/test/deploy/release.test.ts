import { expect } from 'chai';
import { parse } from 'yaml';
import { KEYMASTER_VERSION } from '../../src/version.js';
import { readManifests, readText } from './repo.js';

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
});
