import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const PACKAGE = new URL('../../', import.meta.url);

describe('the executables the package installs', () => {
  const { bin } = JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8')) as { bin: Record<string, string> };

  it('are keymaster and the kubectl plugin kubectl-keymaster (kubectl runs kubectl-<name> on PATH as `kubectl <name>`)', () => {
    expect(bin).to.have.keys(['keymaster', 'kubectl-keymaster']);
  });

  it('are each built from a source with a node shebang', () => {
    for (const [name, path] of Object.entries(bin)) {
      expect(path, name).to.match(/^\.\/dist\/.+\.js$/);
      const source = fileURLToPath(new URL(path.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'), PACKAGE));
      expect(existsSync(source), source).to.equal(true);
      expect(readFileSync(source, 'utf8').split('\n')[0], source).to.equal('#!/usr/bin/env node');
    }
  });
});
