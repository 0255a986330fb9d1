import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
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
});
