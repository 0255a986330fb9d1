import { Environment } from '@marcbachmann/cel-js';
import { AUTHORIZER_TYPE, declareAuthorizerTypes } from './authorizer.js';
import { celGoTypeName, compileIssue } from './cel-words.js';

/**
 * The CEL environments of admission expressions (ValidatingAdmissionPolicy), as kube-apiserver's
 * plugin/cel declares them: `object`, `oldObject` and `params` untyped; `request` and
 * `namespaceObject` typed, so that a misspelt field does not compile; `variables` typed by each
 * variable's own expression; `authorizer` (authorizer.ts) where kube-apiserver declares it.
 * Expressions are type-checked in a typed environment, then run in an untyped one on the JSON values
 * kube-apiserver hands them (a missing optional field of `request` is `no such key` there too).
 */

const OPTIONS = { unlistedVariablesAreDyn: false, enableOptionalTypes: true };

const REQUEST_TYPES: Record<string, Record<string, string>> = {
  'kubernetes.GroupVersionKind': { group: 'string', version: 'string', kind: 'string' },
  'kubernetes.GroupVersionResource': { group: 'string', version: 'string', resource: 'string' },
  'kubernetes.UserInfo': {
    username: 'string',
    uid: 'string',
    groups: 'list<string>',
    extra: 'map<string, list<string>>',
  },
  'kubernetes.AdmissionRequest': {
    kind: 'kubernetes.GroupVersionKind',
    resource: 'kubernetes.GroupVersionResource',
    subResource: 'string',
    requestKind: 'kubernetes.GroupVersionKind',
    requestResource: 'kubernetes.GroupVersionResource',
    requestSubResource: 'string',
    name: 'string',
    namespace: 'string',
    operation: 'string',
    userInfo: 'kubernetes.UserInfo',
    dryRun: 'bool',
    options: 'dyn',
  },
};

const NAMESPACE_TYPES: Record<string, Record<string, string>> = {
  'kubernetes.NamespaceSpec': { finalizers: 'list<string>' },
  'kubernetes.NamespaceCondition': {
    status: 'string',
    type: 'string',
    lastTransitionTime: 'google.protobuf.Timestamp',
    message: 'string',
    reason: 'string',
  },
  'kubernetes.NamespaceStatus': { conditions: 'list<kubernetes.NamespaceCondition>', phase: 'string' },
  'kubernetes.NamespaceMetadata': {
    name: 'string',
    generateName: 'string',
    namespace: 'string',
    labels: 'map<string, string>',
    annotations: 'map<string, string>',
    // sic: cel-go declares it so
    UID: 'string',
    creationTimestamp: 'google.protobuf.Timestamp',
    deletionGracePeriodSeconds: 'int',
    deletionTimestamp: 'google.protobuf.Timestamp',
    generation: 'int',
    resourceVersion: 'string',
    finalizers: 'list<string>',
  },
  'kubernetes.Namespace': {
    metadata: 'kubernetes.NamespaceMetadata',
    spec: 'kubernetes.NamespaceSpec',
    status: 'kubernetes.NamespaceStatus',
  },
};

/** The environment expressions are checked in. */
const checking = new Environment(OPTIONS);
for (const [name, fields] of Object.entries({ ...REQUEST_TYPES, ...NAMESPACE_TYPES })) {
  checking.registerType(name, { fields });
}
declareAuthorizerTypes(checking);
checking
  // namespaceObject is null for cluster-scoped objects, and may be compared with null.
  .registerOperator('kubernetes.Namespace == null', () => false)
  .registerVariable('object', 'dyn')
  .registerVariable('oldObject', 'dyn')
  .registerVariable('request', 'kubernetes.AdmissionRequest')
  .registerVariable('namespaceObject', 'kubernetes.Namespace');

/** The environment expressions run in: every value is the JSON kube-apiserver converts. */
const running = new Environment(OPTIONS);
declareAuthorizerTypes(running);
running
  .registerVariable('object', 'dyn')
  .registerVariable('oldObject', 'dyn')
  .registerVariable('request', 'dyn')
  .registerVariable('namespaceObject', 'dyn');

/** What an expression may name besides object, oldObject, request and namespaceObject. */
export interface Declarations {
  /** The policy's variables so far, with the cel-js type of each (`variables.NAME`). */
  variables?: ReadonlyMap<string, string>;
  params: boolean;
  authorizer: boolean;
}

/** A compiled expression: run it on an activation (the variables' values by name). */
export type Program = (activation: Record<string, unknown>) => unknown;

export type Compiled = { program: Program; type: string } | { error: string };

/** The value of `variables`: each variable evaluated when an expression first reads it (lazily, as cel-go). */
export type VariableValues = new (resolve: (name: string) => unknown) => object;

/** The types an expression must evaluate to; `any` for variables. */
export type Returns = 'any' | readonly string[];

interface Environments {
  checker: Environment;
  runner: Environment;
  values: VariableValues;
}

const environments = new Map<string, Environments>();

/** A class whose instances read each variable through `resolve` (cel-js reads fields of registered types as properties). */
function variableValues(names: string[]): VariableValues {
  class Values {
    constructor(readonly resolve: (name: string) => unknown) {}
  }
  for (const name of names) {
    Object.defineProperty(Values.prototype, name, {
      get(this: Values) {
        return this.resolve(name);
      },
    });
  }
  return Values;
}

/** The environments for one set of declarations (variables make a set per policy version). */
function environmentsFor(declarations: Declarations): Environments {
  const variables = [...(declarations.variables ?? [])];
  const key = JSON.stringify([declarations.params, declarations.authorizer, variables]);
  let found = environments.get(key);
  if (found) return found;
  const checker = checking.clone();
  const runner = running.clone();
  const values = variableValues(variables.map(([name]) => name));
  if (declarations.params) {
    checker.registerVariable('params', 'dyn');
    runner.registerVariable('params', 'dyn');
  }
  if (declarations.variables) {
    try {
      checker.registerType('kubernetes.variables', { fields: Object.fromEntries(variables) });
    } catch {
      // a type cel-js cannot declare as a field: the variables are untyped then
      checker.registerType('kubernetes.variables', {
        fields: Object.fromEntries(variables.map(([name]) => [name, 'dyn'])),
      });
    }
    checker.registerVariable('variables', 'kubernetes.variables');
    const untyped = Object.fromEntries(variables.map(([name]) => [name, 'dyn']));
    runner.registerType('kubernetes.variables', { ctor: values, fields: untyped });
    runner.registerVariable('variables', 'kubernetes.variables');
  }
  if (declarations.authorizer) {
    checker.registerVariable('authorizer', AUTHORIZER_TYPE);
    runner.registerVariable('authorizer', AUTHORIZER_TYPE);
  }
  found = { checker, runner, values };
  environments.set(key, found);
  return found;
}

/**
 * Compiles an expression as kube-apiserver's CompileCELExpression does: `compilation failed: ERROR:
 * <input>:L:C: ...` when it does not parse or check, `must evaluate to bool but got dyn` when its type
 * is not one it may return.
 */
export function compileExpression(expression: string, returns: Returns, declarations: Declarations): Compiled {
  const { checker, runner } = environmentsFor(declarations);
  let type: string;
  try {
    const checked = checker.check(expression);
    if (!checked.valid) return { error: `compilation failed: ${compileIssue(expression, checked.error)}` };
    type = checked.type ?? 'dyn';
  } catch (error) {
    return { error: `compilation failed: ${compileIssue(expression, error)}` };
  }
  if (returns !== 'any' && !returns.includes(type)) {
    const expected = returns.map(celGoTypeName);
    const got = celGoTypeName(type);
    return {
      error:
        expected.length === 1
          ? `must evaluate to ${expected[0]} but got ${got}`
          : `must evaluate to one of [${expected.join(' ')}] but got ${got}`,
    };
  }
  const parsed = runner.parse(expression);
  return {
    program: (activation) => {
      const value: unknown = parsed(activation);
      return value;
    },
    type,
  };
}

/** The class of `variables` values for expressions compiled with these declarations. */
export const variablesOf = (declarations: Declarations): VariableValues => environmentsFor(declarations).values;
