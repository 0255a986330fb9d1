// A module resolution hook (node:module register) adding the `@keymaster/source` export condition,
// so that workspace packages resolve to their TypeScript sources: see run-cli.mjs.
export function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, '@keymaster/source'] });
}
