import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const PACKAGE = new URL('../../', import.meta.url);

describe('the executables the package installs', () => {
  const { bin } = JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8')) as { bin: Record<string, string> };

  it('are keymaster and the kubectl plugin kubectl-keymaster (kubectl runs kubectl-<name> on PATH as `kubectl <name>`)', () => {
    expect(bin).to.have.keys(['keymaster', 'kubectl-keymaster']);
  });

  it('are each a committed shim with a node shebang that runs a source of the package (scripts/run-cli.mjs)', () => {
    for (const [name, path] of Object.entries(bin)) {
      expect(path, name).to.equal(`./bin/${name}.js`);
      const shim = readFileSync(new URL(path, PACKAGE), 'utf8');
      expect(shim.split('\n')[0], name).to.equal('#!/usr/bin/env node');
      const entry = /runCli\(import\.meta\.url, '([^']+)'\)/.exec(shim)?.[1];
      const source = fileURLToPath(new URL(`src/${entry}.ts`, PACKAGE));
      expect(existsSync(source), source).to.equal(true);
    }
  });
});
