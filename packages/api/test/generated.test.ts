import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import { generatedFiles } from '../scripts/generated-files.js';

describe('generated files', () => {
  it('the CRDs in deploy/crds and the Helm chart, and src/generated/types.ts are what the schemas generate (run `pnpm generate`)', async () => {
    const files = await generatedFiles();
    expect(files.size).to.be.greaterThan(5);
    for (const [path, expected] of files) {
      const actual = await readFile(path, 'utf8').catch(() => '<missing>');
      expect(actual, `${relative(process.cwd(), path)} is stale: run pnpm generate`).to.equal(expected);
    }
  });

  it('deploy/iam holds nothing but what the IAM source generates (a file it no longer makes is deleted)', async () => {
    const generated = [...(await generatedFiles()).keys()].filter((path) => path.includes('/deploy/iam/'));
    expect(generated).to.have.length.greaterThan(5);
    const folder = dirname(generated[0]!);
    const present = (await readdir(folder)).map((name) => join(folder, name));
    expect(present.sort()).to.deep.equal([...generated].sort());
  });
});
