import { runtimeError } from './cel-words.js';
import type { CompiledPolicy, CompiledValidation, NamedExpression } from './compile.js';
import { variablesOf, type Compiled } from './environment.js';

/** A validation that did not admit the request: what kube-apiserver's validator decides (validator.go). */
export interface Refusal {
  message: string;
  /** The Status reason of a failed validation; empty for errors (then Invalid). */
  reason: string;
}

/** The CEL values of one request: `object`, `oldObject`, `request`, `namespaceObject`, `authorizer`. */
export interface Inputs {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  namespaceObject: unknown;
  authorizer: unknown;
}

type Outcome = { value: unknown } | { error: string };

/** Runs a compiled expression; an error is worded as kube-apiserver's evaluation errors are. */
function run(compiled: Compiled, expression: string, activation: Record<string, unknown>): Outcome {
  if ('error' in compiled) return { error: `compilation error: ${compiled.error}` };
  try {
    return { value: compiled.program(activation) };
  } catch (error) {
    return { error: `expression '${expression}' resulted in error: ${runtimeError(error)}` };
  }
}

/** The `variables` of one request: each evaluated when first read, then kept. */
function variableValues(policy: CompiledPolicy, inputs: Inputs): object {
  const Values = variablesOf(policy.declarations);
  const known = new Map<string, unknown>();
  const values = new Values((name) => {
    if (!known.has(name)) {
      const variable = policy.variables.find((candidate) => candidate.name === name)!;
      const compiled = variable.compiled;
      if ('error' in compiled) throw new Error(`composited variable "${name}" fails to compile: ${compiled.error}`);
      try {
        known.set(name, compiled.program({ ...inputs, variables: values }));
      } catch (error) {
        throw new Error(`composited variable "${name}" fails to evaluate: ${runtimeError(error)}`, { cause: error });
      }
    }
    return known.get(name);
  });
  return values;
}

/** Go's aggregate of errors: one as it is, several as `[a, b]`. */
const aggregate = (errors: string[]): string => (errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);

/**
 * Whether matchConditions (a policy's or a webhook's) let the request through: any false one skips
 * it; errors refuse under failurePolicy Fail and skip under Ignore. (They see no namespaceObject, as
 * kube-apiserver gives them none.)
 */
export function conditionsHold(conditions: NamedExpression[], inputs: Inputs, fail: boolean): boolean | Refusal {
  const errors: string[] = [];
  const activation = { ...inputs, namespaceObject: null };
  for (const condition of conditions) {
    const outcome = run(condition.compiled, condition.expression, activation);
    if ('error' in outcome) errors.push(outcome.error);
    else if (outcome.value === false) return false;
  }
  if (errors.length === 0) return true;
  return fail ? { message: aggregate(errors), reason: '' } : false;
}

/** The message of a failed validation: its messageExpression's, its message, or the expression. */
function failureMessage(validation: CompiledValidation, activation: Record<string, unknown>): string {
  const { messageExpression } = validation;
  if (messageExpression && 'program' in messageExpression) {
    try {
      const value = messageExpression.program(activation);
      if (typeof value === 'string') {
        const message = value.trim();
        if (message !== '' && message.length <= 5 * 1024 && !message.includes('\n')) return message;
      }
    } catch {
      // kube-apiserver falls back to the static message when the messageExpression fails
    }
  }
  return validation.message.trim() || `failed expression: ${validation.expression.trim()}`;
}

/** The refusals of one policy for one request, in the order of its validations. */
export function evaluatePolicy(policy: CompiledPolicy, inputs: Inputs, failurePolicy: string): Refusal[] {
  const fail = failurePolicy !== 'Ignore';
  const held = conditionsHold(policy.matchConditions, inputs, fail);
  if (held === false) return [];
  if (held !== true) return [held];
  const activation: Record<string, unknown> = {
    ...inputs,
    ...(policy.declarations.variables ? { variables: variableValues(policy, inputs) } : {}),
  };
  const refusals: Refusal[] = [];
  for (const validation of policy.validations) {
    const outcome = run(validation.compiled, validation.expression, activation);
    if ('error' in outcome) {
      if (fail) refusals.push({ message: outcome.error, reason: '' });
    } else if (outcome.value !== true) {
      refusals.push({ message: failureMessage(validation, activation), reason: validation.reason || 'Invalid' });
    }
  }
  return refusals;
}
