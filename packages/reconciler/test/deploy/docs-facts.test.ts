import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { KEYMASTER_VERSION } from '../../src/version.js';
import { ROOT, codeBlock, readManifests, readText } from './repo.js';

/** Counts written as words, by their value. */
const NUMBERS = 'zero one two three four five six seven eight nine ten eleven twelve'.split(' ');

/** The Markdown pages a reader walks: README.md and docs/. */
const pages = () => [
  'README.md',
  ...readdirSync(`${ROOT}docs`, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** The facts the docs state about the repository, read from where they are true. */
describe('the docs agree with the repository', () => {
  it("docs/operations.md's Kustomize overlay pins the image at this release", () => {
    const overlay = codeBlock('docs/operations.md', '# my-cluster/kustomization.yaml');
    expect(/newTag: (\S+)/.exec(overlay)?.[1]).to.equal(KEYMASTER_VERSION);
  });

  it('every count of CRDs in the docs is the number deploy/crds holds', () => {
    const crds = readManifests('deploy/crds/kustomization.yaml')[0]!.resources as string[];
    expect(crds.length).to.be.greaterThan(5);
    const counts = pages().flatMap((page) =>
      [...readText(page).matchAll(/\b(\d+|[a-z]+) (?:CRDs|custom resource definitions)\b/gi)]
        .map(([phrase, count]) => ({
          page,
          phrase,
          count: /^\d+$/.test(count!) ? Number(count) : NUMBERS.indexOf(count!.toLowerCase()),
        }))
        .filter(({ count }) => count >= 0),
    );
    expect(counts.filter(({ count }) => count !== crds.length)).to.deep.equal([]);
  });

  it("docs/operations.md quotes the chained-role durationSeconds refusal as the CRD's rule words it", () => {
    const crd = readText('deploy/crds/infrastructure.keymaster.dev_awsclusterroleidentities.yaml');
    const message = /message: "(durationSeconds may be at most 3600[^"]*)"/.exec(crd)?.[1];
    expect(message, 'the CRD has no durationSeconds rule').to.be.a('string');
    const quoted = codeBlock('docs/operations.md', 'The AWSClusterRoleIdentity "chained-long" is invalid').replace(
      /\n/g,
      ' ',
    );
    // kube-apiserver 1.37's words (1.33 printed `Invalid value: "object": `).
    expect(quoted.trim()).to.equal(
      `The AWSClusterRoleIdentity "chained-long" is invalid: spec.durationSeconds: Invalid value: ${message}`,
    );
  });
});
