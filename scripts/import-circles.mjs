// Fails when the modules of a package import each other in a circle (type-only imports count: a
// circle of types is a knot of concerns all the same). Run by `pnpm lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const sources = (folder) =>
  readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));

/** The package's own modules a module imports or re-exports (`./x.js` is `./x.ts`). */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
}

/** Each circle once, as the path from a module back to itself (depth-first, on the grey modules). */
function circles(graph) {
  const found = [];
  const state = new Map();
  const visit = (file, path) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  return found;
}

const packages = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'src'));
const graph = new Map(packages.flatMap(sources).map((file) => [file, importsOf(file)]));
const found = circles(graph);
for (const circle of found) console.error(`import circle: ${circle.map((file) => relative(ROOT, file)).join(' -> ')}`);
if (found.length > 0) {
  console.error('Move what both sides need into a module of its own, which neither imports back.');
  process.exit(1);
}
