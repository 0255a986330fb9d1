import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const SRC = new URL('../src/', import.meta.url).pathname;
const DOC = new URL('../../../docs/architecture.md', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(SRC, path), 'utf8');

/** The folders of src/ that set up a controller (hold a setup.ts). */
const setups = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(join(SRC, entry.name)).includes('setup.ts'))
  .map((entry) => entry.name);

describe('controller wiring', () => {
  it('finds the controllers set up today', () => {
    expect(setups).to.include.members(['awscluster', 'awsclusteridentity', 'credentials']);
  });

  it('calls every setup.ts from controllers.ts', () => {
    const controllers = read('controllers.ts');
    for (const folder of setups) {
      const exported = [...read(`${folder}/setup.ts`).matchAll(/^export function (setup\w+)/gm)].map((m) => m[1]!);
      expect(exported, `${folder}/setup.ts exports a setup function`).to.have.length.greaterThan(0);
      expect(controllers, `controllers.ts imports ${folder}/setup.ts`).to.include(`'./${folder}/setup.js'`);
      for (const name of exported)
        expect(controllers, `controllers.ts calls ${name}`).to.match(new RegExp(`${name}\\(`));
    }
  });

  it('keeps the manager free of controllers, and the runtime free of the product', () => {
    const manager = read('manager.ts');
    for (const folder of setups) expect(manager).to.not.include(`./${folder}/`);
    expect(manager).to.not.match(/AWSCluster|Identity|CredentialsRequest/);
    expect(manager.split('\n').length, 'the manager stays under 200 lines').to.be.below(200);
    for (const file of readdirSync(join(SRC, 'runtime')).filter((name) => name.endsWith('.ts')))
      for (const [, from] of read(`runtime/${file}`).matchAll(/from '(\.[^']*)'/g))
        expect(from, `runtime/${file} imports ${from}`).to.match(/^\.\/[\w-]+\.js$/);
  });

  it("lists in docs/architecture.md's how-to files that exist", () => {
    const doc = readFileSync(DOC, 'utf8');
    const howTo = doc.slice(doc.indexOf('### Adding a CRD controller'));
    const files = [...howTo.matchAll(/`packages\/reconciler\/src\/([\w/.-]+\.ts)`/g)].map((m) => m[1]!);
    expect(files).to.include.members(['controllers.ts']);
    for (const file of files) expect(() => read(file), `${file} exists`).to.not.throw();
  });
});
