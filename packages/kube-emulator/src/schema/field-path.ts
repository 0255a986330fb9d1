import type { Schema } from './types.js';

/** A rule's fieldPath split as kube-apiserver scans it: `.`, `[` and `]` alone, `'quoted'` strings, names. */
function tokens(path: string): string[] {
  return path.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]'][^.[\]]*|'.*/g) ?? [];
}

const unquote = (token: string): string | undefined =>
  token.length >= 2 && token.startsWith("'") && token.endsWith("'")
    ? token.slice(1, -1).replace(/\\(.)/g, '$1')
    : undefined;

/**
 * Whether a rule's `fieldPath` names a field below `schema`, as kube-apiserver's ValidFieldPath
 * decides before it accepts a CRD: each `.name` or `['name']` step is a declared property, or a map
 * key where the node has only additionalProperties. Lists cannot be stepped into.
 */
export function validFieldPath(path: string, schema: Schema): boolean {
  const steps = tokens(path);
  let node = schema;
  for (let index = 0; index < steps.length; index++) {
    const delimiter = steps[index];
    let name: string | undefined;
    if (delimiter === '.') name = steps[++index];
    else if (delimiter === '[') {
      name = unquote(steps[++index] ?? '');
      if (steps[++index] !== ']') return false;
    }
    if (name === undefined) return false;
    if (node.properties !== undefined) {
      const declared: Schema | undefined = node.properties[name];
      if (declared === undefined) return false;
      node = declared;
    } else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else return false;
  }
  return true;
}
