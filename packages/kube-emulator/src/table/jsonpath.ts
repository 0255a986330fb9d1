import { isObject, type Json, text } from '../util/json.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op: '==' | '!='; value: string };

/**
 * The JSONPath subset printer columns use: `.a.b`, `['a.b']`, `[0]`, `[*]` and
 * `[?(@.type=="Ready")]`. Parsed once per column.
 */
export function compileJsonPath(expression: string): (value: Json) => Json[] {
  const steps = parse(expression.replace(/^\{|\}$/g, '').replace(/^\$/, ''));
  return (value) => steps.reduce<Json[]>((values, step) => values.flatMap((item) => apply(step, item)), [value]);
}

function parse(path: string): Step[] {
  const steps: Step[] = [];
  const token =
    /\.([^.[\]]+)|\['([^']*)'\]|\[(\d+)\]|\[\*\]|\[\?\(@((?:\.[\w-]+)+)\s*(==|!=)\s*["']?([^"')]*)["']?\)\]/y;
  let position = 0;
  while (position < path.length) {
    token.lastIndex = position;
    const match = token.exec(path);
    if (!match) throw new Error(`unsupported JSONPath ${JSON.stringify(path)} at ${position}`);
    position = token.lastIndex;
    const [, field, quoted, index, filterPath, op, value] = match;
    if (field !== undefined || quoted !== undefined) steps.push({ kind: 'field', name: (field ?? quoted)! });
    else if (index !== undefined) steps.push({ kind: 'index', index: Number(index) });
    else if (filterPath !== undefined) {
      steps.push({ kind: 'filter', path: filterPath.slice(1).split('.'), op: op as '==' | '!=', value: value ?? '' });
    } else steps.push({ kind: 'all' });
  }
  return steps;
}

function apply(step: Step, value: Json): Json[] {
  switch (step.kind) {
    case 'field':
      return isObject(value) && value[step.name] !== undefined ? [value[step.name]!] : [];
    case 'index':
      return Array.isArray(value) && step.index < value.length ? [value[step.index]!] : [];
    case 'all':
      return Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
    case 'filter': {
      const items = Array.isArray(value) ? value : [];
      return items.filter((item) => {
        const found = step.path.reduce<Json | undefined>((at, key) => (isObject(at) ? at[key] : undefined), item);
        const equal = found !== undefined && text(found) === step.value;
        return step.op === '==' ? equal : !equal;
      });
    }
  }
}
