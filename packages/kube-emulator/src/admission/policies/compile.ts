import type { StatusCause } from '../../api/status.js';
import { arrayAt, isObject, objectAt, text, type JsonObject } from '../../util/json.js';
import { compileExpression, type Compiled, type Declarations } from './environment.js';

export interface NamedExpression {
  name: string;
  expression: string;
  compiled: Compiled;
}

export interface CompiledValidation {
  expression: string;
  message: string;
  reason: string;
  compiled: Compiled;
  messageExpression: Compiled | undefined;
}

/** A ValidatingAdmissionPolicy's expressions, compiled as kube-apiserver compiles them. */
export interface CompiledPolicy {
  /** What the validations were compiled with: the class of `variables` follows from it. */
  declarations: Declarations;
  variables: NamedExpression[];
  matchConditions: NamedExpression[];
  validations: CompiledValidation[];
  /** The compile errors, each on its field, as the policy's validation refuses them. */
  causes: StatusCause[];
}

const objects = (object: JsonObject, key: string): JsonObject[] => (arrayAt(object, key) ?? []).filter(isObject);

/** The error of an expression that does not compile, as `spec.validations[0].expression: Invalid value: ...`. */
const invalidExpression = (field: string, expression: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(expression)}: ${detail}`,
});

const failed = (compiled: Compiled): string | undefined => ('error' in compiled ? compiled.error : undefined);

/**
 * Compiles matchConditions (of a policy or a webhook): boolean expressions that see no variables;
 * their compile errors are added to `causes` under `field`.
 */
export function compileConditions(
  conditions: JsonObject[],
  params: boolean,
  field: string,
  causes: StatusCause[],
): NamedExpression[] {
  return conditions.flatMap((condition, index): NamedExpression[] => {
    const expression = text(condition.expression).trim();
    if (expression === '') return [];
    const compiled = compileExpression(expression, ['bool'], { params, authorizer: true });
    const error = failed(compiled);
    if (error) causes.push(invalidExpression(`${field}[${index}].expression`, expression, error));
    return [{ name: text(condition.name), expression, compiled }];
  });
}

/**
 * Compiles a policy's spec: its variables in order (each sees those before it, typed by its own
 * result), its matchConditions (which see no variables), its validations and their
 * messageExpressions (which see no authorizer), and its audit annotations' values.
 */
export function compilePolicy(spec: JsonObject): CompiledPolicy {
  const params = objectAt(spec, 'paramKind') !== undefined;
  const causes: StatusCause[] = [];
  const typed = new Map<string, string>();
  const variables: NamedExpression[] = [];
  const hasVariables = objects(spec, 'variables').length > 0;
  objects(spec, 'variables').forEach((variable, index) => {
    const expression = text(variable.expression);
    const name = text(variable.name);
    if (expression.trim() === '') return;
    const compiled = compileExpression(expression, 'any', { variables: new Map(typed), params, authorizer: true });
    const error = failed(compiled);
    if (error) causes.push(invalidExpression(`spec.variables[${index}].expression`, expression, error));
    typed.set(name, 'type' in compiled ? compiled.type : 'dyn');
    variables.push({ name, expression, compiled });
  });
  const declarations: Declarations = { ...(hasVariables ? { variables: typed } : {}), params, authorizer: true };
  const matchConditions = compileConditions(objects(spec, 'matchConditions'), params, 'spec.matchConditions', causes);
  const validations = objects(spec, 'validations').flatMap((validation, index): CompiledValidation[] => {
    const expression = text(validation.expression);
    if (expression.trim() === '') return [];
    const compiled = compileExpression(expression, ['bool'], declarations);
    const error = failed(compiled);
    if (error) causes.push(invalidExpression(`spec.validations[${index}].expression`, expression, error));
    const messageSource = text(validation.messageExpression);
    let messageExpression: Compiled | undefined;
    if (messageSource.trim() !== '') {
      messageExpression = compileExpression(messageSource, ['string'], { ...declarations, authorizer: false });
      const messageError = failed(messageExpression);
      if (messageError) {
        causes.push(invalidExpression(`spec.validations[${index}].messageExpression`, messageSource, messageError));
      }
    }
    return [
      {
        expression,
        message: text(validation.message),
        reason: text(validation.reason),
        compiled,
        messageExpression,
      },
    ];
  });
  objects(spec, 'auditAnnotations').forEach((annotation, index) => {
    const source = text(annotation.valueExpression);
    const expression = source.trim();
    if (expression === '' || expression.length > 5 * 1024) return;
    const error = failed(compileExpression(expression, ['string', 'null'], declarations));
    if (error) causes.push(invalidExpression(`spec.auditAnnotations[${index}].valueExpression`, source, error));
  });
  return { declarations, variables, matchConditions, validations, causes };
}
