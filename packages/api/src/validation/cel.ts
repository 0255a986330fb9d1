import { parse } from '@marcbachmann/cel-js';

type Program = ReturnType<typeof parse>;
const programs = new Map<string, Program>();

function compile(rule: string): Program {
  let program = programs.get(rule);
  if (!program) {
    program = parse(rule);
    programs.set(rule, program);
  }
  return program;
}

/** JSON numbers become CEL ints when whole (CEL does not compare int fields with double literals loosely). */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  }
  return value;
}

export const isTransitionRule = (rule: string): boolean => /\boldSelf\b/.test(rule);

/** Evaluates a rule; `true` when it holds. Throws when the rule cannot be evaluated. */
export function evaluateRule(rule: string, self: unknown, oldSelf?: unknown): boolean {
  const variables: Record<string, unknown> = { self: toCel(self) };
  if (oldSelf !== undefined) variables['oldSelf'] = toCel(oldSelf);
  return compile(rule)(variables) === true;
}
