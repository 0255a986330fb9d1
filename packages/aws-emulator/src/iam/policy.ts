import { parseCondition, type Condition } from './conditions.js';
import { wildcardMatcher, type Matcher } from './patterns.js';

/** One statement of an IAM policy, parsed and compiled for evaluation. */
export interface Statement {
  readonly effect: 'Allow' | 'Deny';
  /** Exactly one of `actions` / `notActions` is set. */
  readonly actions?: readonly Matcher[];
  readonly notActions?: readonly Matcher[];
  /** Exactly one of `resources` / `notResources` is set. */
  readonly resources?: readonly Matcher[];
  readonly notResources?: readonly Matcher[];
  readonly conditions: readonly Condition[];
}

/** An IAM policy document: its statements, and the JSON it was read from. */
export interface PolicyDocument {
  readonly statements: readonly Statement[];
  readonly source: unknown;
}

/** A policy that allows the given action patterns on every resource: the world file's `allow` lists. */
export function allowPolicy(actionPatterns: readonly string[]): PolicyDocument {
  const source = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: actionPatterns, Resource: '*' }] };
  return parsePolicyDocument(source) as PolicyDocument;
}

/**
 * Reads a policy document (an object, or JSON text as AssumeRole's `Policy` carries it). Returns the
 * document, or a sentence saying what is wrong with it (IAM calls such documents malformed).
 */
export function parsePolicyDocument(input: unknown): PolicyDocument | string {
  let source = input;
  if (typeof input === 'string') {
    try {
      source = JSON.parse(input);
    } catch {
      return 'The policy is not in the valid JSON format.';
    }
  }
  if (!isRecord(source)) return 'The policy must be a JSON object.';
  const unknownKey = Object.keys(source).find((key) => !['Version', 'Id', 'Statement'].includes(key));
  if (unknownKey !== undefined) return `Syntax errors in policy: unknown element '${unknownKey}'.`;
  if (source.Version !== undefined && source.Version !== '2012-10-17' && source.Version !== '2008-10-17') {
    return `The policy Version ${JSON.stringify(source.Version)} is not valid: use "2012-10-17".`;
  }
  if (source.Statement === undefined) return 'Syntax errors in policy: missing required field Statement.';
  const raw = Array.isArray(source.Statement) ? source.Statement : [source.Statement];
  const statements: Statement[] = [];
  for (const [index, item] of raw.entries()) {
    const statement = parseStatement(item);
    if (typeof statement === 'string') return `Syntax errors in policy: Statement[${index}]: ${statement}`;
    statements.push(statement);
  }
  return { statements, source };
}

const STATEMENT_KEYS = ['Sid', 'Effect', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition'];

function parseStatement(item: unknown): Statement | string {
  if (!isRecord(item)) return 'a statement must be an object';
  const unknownKey = Object.keys(item).find((key) => !STATEMENT_KEYS.includes(key));
  if (unknownKey !== undefined) {
    return `element '${unknownKey}' is not supported (supported: ${STATEMENT_KEYS.join(', ')})`;
  }
  if (item.Effect !== 'Allow' && item.Effect !== 'Deny') return 'Effect must be "Allow" or "Deny"';
  const actions = exactlyOne(item, 'Action', 'NotAction', { ignoreCase: true });
  if (typeof actions === 'string') return actions;
  const resources = exactlyOne(item, 'Resource', 'NotResource', {});
  if (typeof resources === 'string') return resources;
  const conditions = item.Condition === undefined ? [] : parseConditionBlock(item.Condition);
  if (typeof conditions === 'string') return conditions;
  return {
    effect: item.Effect,
    ...(actions.positive ? { actions: actions.matchers } : { notActions: actions.matchers }),
    ...(resources.positive ? { resources: resources.matchers } : { notResources: resources.matchers }),
    conditions,
  };
}

/** A statement's `Condition` block (`{operator: {key: values}}`), compiled; or a sentence saying what is wrong. */
export function parseConditionBlock(block: unknown): Condition[] | string {
  if (!isRecord(block)) return 'Condition must be an object of operators';
  const conditions: Condition[] = [];
  for (const [operator, keys] of Object.entries(block)) {
    if (!isRecord(keys)) return `Condition.${operator} must be an object of condition keys`;
    for (const [key, values] of Object.entries(keys)) {
      const condition = parseCondition(operator, key, values);
      if (typeof condition === 'string') return `Condition.${operator}.${key}: ${condition}`;
      conditions.push(condition);
    }
  }
  return conditions;
}

function exactlyOne(
  item: Record<string, unknown>,
  name: string,
  negated: string,
  options: { ignoreCase?: boolean },
): { positive: boolean; matchers: Matcher[] } | string {
  if ((item[name] === undefined) === (item[negated] === undefined)) return `exactly one of ${name} and ${negated}`;
  const positive = item[name] !== undefined;
  const value = positive ? item[name] : item[negated];
  const patterns = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(patterns) || patterns.length === 0 || !patterns.every((p) => typeof p === 'string')) {
    return `${positive ? name : negated} must be a string or a non-empty list of strings`;
  }
  return { positive, matchers: patterns.map((pattern) => wildcardMatcher(pattern, options)) };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
