import { badRequest } from '../api/status.js';

type Operator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Labels = Record<string, string> | undefined;
export type LabelMatcher = (labels: Labels) => boolean;

/** Splits on commas outside parentheses: `a in (x,y),b` is two requirements. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

function parseRequirement(text: string): Requirement {
  let match = /^!\s*([^\s!=<>(),]+)$/.exec(text);
  if (match) return { key: match[1]!, operator: '!', values: [] };
  match = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (match) {
    const values = match[3]!.split(',').map((value) => value.trim());
    return { key: match[1]!, operator: match[2] as Operator, values };
  }
  match = /^([^\s!=<>(),]+)\s*(==|=|!=|<|>)\s*([^\s!=<>(),]*)$/.exec(text);
  if (match) {
    const operators: Record<string, Operator> = { '==': '=', '=': '=', '!=': '!=', '<': 'lt', '>': 'gt' };
    return { key: match[1]!, operator: operators[match[2]!]!, values: [match[3]!] };
  }
  match = /^([^\s!=<>(),]+)$/.exec(text);
  if (match) return { key: match[1]!, operator: 'exists', values: [] };
  throw badRequest(`unable to parse requirement: found '${text}', expected: in, notin, =, ==, !=, gt, lt`);
}

function matches({ key, operator, values }: Requirement, labels: Labels): boolean {
  const value = labels?.[key];
  switch (operator) {
    case '=':
    case 'in':
      return value !== undefined && values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      const [number, bound] = [Number(value), Number(values[0])];
      return value !== undefined && !Number.isNaN(number) && (operator === 'gt' ? number > bound : number < bound);
    }
  }
}

/** A label selector (`a=b,c!=d,e in (f,g),h,!i`) as a predicate; 400 Bad Request when it does not parse. */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher {
  const requirements = splitRequirements(selector ?? '').map(parseRequirement);
  return (labels) => requirements.every((requirement) => matches(requirement, labels));
}
