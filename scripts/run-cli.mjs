// The packages' `bin` entries point at small committed shims that call this, not at dist/ files:
// pnpm links every workspace bin at install time, before any build, and warns for each missing
// target. A shim runs the built CLI when `pnpm build` has made it, else the TypeScript source through
// tsx, resolving workspace packages to their sources as the root scripts do (docs/architecture.md).
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';
import { fileURLToPath, URL } from 'node:url';
import { resolve as resolveFromSources } from './source-condition.mjs';

/** Runs `dist/<entry>.js` of the package around `shimUrl` (its bin/ folder), or `src/<entry>.ts`. */
export async function runCli(shimUrl, entry) {
  const built = new URL(`../dist/${entry}.js`, shimUrl);
  if (existsSync(fileURLToPath(built))) return import(built.href);
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // Registered last, so it runs first: the `--conditions=@keymaster/source` of the root scripts. In
  // this thread where Node.js can (registerHooks, 22.15 and later): Node.js 26 deprecates register,
  // which runs hooks on a loader thread and is all Node.js 20 has.
  if (nodeModule.registerHooks) nodeModule.registerHooks({ resolve: resolveFromSources });
  else nodeModule.register('./source-condition.mjs', import.meta.url);
  return import(new URL(`../src/${entry}.ts`, shimUrl).href);
}
