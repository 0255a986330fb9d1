// A module resolution hook adding the `@keymaster/source` export condition, so that workspace packages
// resolve to their TypeScript sources: see run-cli.mjs. It works as a synchronous hook
// (node:module registerHooks) and as an asynchronous one (node:module register) alike.
export function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, '@keymaster/source'] });
}
