import { wildcardMatcher } from './patterns.js';

/** The values a request carries for each condition key; keys are lower case (IAM keys are case-insensitive). */
export type ConditionContext = ReadonlyMap<string, readonly string[]>;

/** One `operator: {key: values}` test of a statement's Condition block. */
export interface Condition {
  readonly test: (context: ConditionContext) => boolean;
}

type Comparison = (requestValue: string, policyValue: string) => boolean;

const COMPARISONS: Record<string, { compare: Comparison; negated: boolean }> = {
  StringEquals: { compare: (a, b) => a === b, negated: false },
  StringNotEquals: { compare: (a, b) => a === b, negated: true },
  StringEqualsIgnoreCase: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: true },
  StringLike: { compare: (a, b) => wildcardMatcher(b)(a), negated: false },
  StringNotLike: { compare: (a, b) => wildcardMatcher(b)(a), negated: true },
  ArnEquals: { compare: (a, b) => a === b, negated: false },
  ArnNotEquals: { compare: (a, b) => a === b, negated: true },
  ArnLike: { compare: (a, b) => wildcardMatcher(b)(a), negated: false },
  ArnNotLike: { compare: (a, b) => wildcardMatcher(b)(a), negated: true },
  Bool: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: false },
  NumericEquals: { compare: numeric((a, b) => a === b), negated: false },
  NumericNotEquals: { compare: numeric((a, b) => a === b), negated: true },
  NumericLessThan: { compare: numeric((a, b) => a < b), negated: false },
  NumericLessThanEquals: { compare: numeric((a, b) => a <= b), negated: false },
  NumericGreaterThan: { compare: numeric((a, b) => a > b), negated: false },
  NumericGreaterThanEquals: { compare: numeric((a, b) => a >= b), negated: false },
};

export const CONDITION_OPERATORS = [...Object.keys(COMPARISONS), 'Null'];

function numeric(compare: (a: number, b: number) => boolean): Comparison {
  return (a, b) => a.trim() !== '' && b.trim() !== '' && compare(Number(a), Number(b));
}

/**
 * Compiles one condition. `operator` may carry a `ForAllValues:` / `ForAnyValue:` prefix and an
 * `IfExists` suffix. Returns the condition or a sentence saying what is wrong.
 */
export function parseCondition(operator: string, key: string, raw: unknown): Condition | string {
  const values = typeof raw === 'string' || typeof raw === 'boolean' || typeof raw === 'number' ? [raw] : raw;
  if (!Array.isArray(values) || values.length === 0 || !values.every(isScalar)) {
    return 'the value must be a string or a non-empty list of strings';
  }
  const policyValues = values.map(String);
  const contextKey = key.toLowerCase();
  if (operator === 'Null') {
    const wantAbsent = policyValues[0]!.toLowerCase() === 'true';
    return { test: (context) => (context.get(contextKey) === undefined) === wantAbsent };
  }
  const match = /^(ForAllValues:|ForAnyValue:)?(\w+?)(IfExists)?$/.exec(operator);
  const comparison = match === null ? undefined : COMPARISONS[match[2]!];
  if (match === null || comparison === undefined) {
    return `operator '${operator}' is not supported (supported: ${CONDITION_OPERATORS.join(', ')}, with optional ForAllValues:/ForAnyValue: and IfExists)`;
  }
  const { compare, negated } = comparison;
  const matchesAny = (requestValue: string) => policyValues.some((policyValue) => compare(requestValue, policyValue));
  const holds = (requestValue: string) => matchesAny(requestValue) !== negated;
  const quantifier = match[1];
  const ifExists = match[3] !== undefined;
  return {
    test(context) {
      const requestValues = context.get(contextKey) ?? [];
      if (quantifier === 'ForAllValues:') return requestValues.every(holds);
      if (quantifier === 'ForAnyValue:') return requestValues.some(holds);
      if (requestValues.length === 0) return ifExists || negated;
      return negated ? requestValues.every(holds) : requestValues.some(holds);
    },
  };
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
