import { characterCount } from '../characters.js';
import type { JSONSchemaProps, ValidationRule } from '../schema/openapi.js';
import { compilePattern } from '../schema/patterns.js';
import { evaluateRule, isTransitionRule } from './cel.js';
import { quote, type FieldCause } from './cause.js';

export interface SchemaCheckOptions {
  /** The object before this update: enables transition rules (those that read `oldSelf`). */
  oldValue?: unknown;
  /** Fields the schema does not know: `reject` (default, like kubectl's strict field validation) or `ignore`. */
  unknownFields?: 'reject' | 'ignore';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const typeMatches: Record<NonNullable<JSONSchemaProps['type']>, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (value) => typeof value === 'string',
  integer: (value) => Number.isInteger(value),
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
};

/**
 * Checks a value against a structural schema the way the API server does for custom resources:
 * types, required fields, enums, patterns, bounds, list types and CEL rules. Returns every cause
 * found (empty when valid); never throws for bad input.
 */
export function checkSchema(
  schema: JSONSchemaProps,
  value: unknown,
  path: string,
  options: SchemaCheckOptions = {},
): FieldCause[] {
  const causes: FieldCause[] = [];
  walk(schema, value, options.oldValue, path, options.unknownFields ?? 'reject', causes);
  return causes;
}

function walk(
  schema: JSONSchemaProps,
  value: unknown,
  oldValue: unknown,
  path: string,
  unknownFields: 'reject' | 'ignore',
  causes: FieldCause[],
): void {
  const add = (reason: FieldCause['reason'], message: string, field = path) => causes.push({ reason, field, message });
  if (schema.type && !typeMatches[schema.type](value)) {
    add('FieldValueTypeInvalid', `Invalid value: ${quote(value)}: must be of type ${schema.type}`);
    return;
  }
  const before = causes.length;
  if (schema.enum && !schema.enum.includes(value as string)) {
    add(
      'FieldValueNotSupported',
      `Unsupported value: ${quote(value)}: supported values: ${schema.enum.map(quote).join(', ')}`,
    );
  }
  if (typeof value === 'string') checkString(schema, value, add);
  if (typeof value === 'number') checkNumber(schema, value, add);
  if (Array.isArray(value)) checkArray(schema, value, oldValue, path, unknownFields, causes);
  if (isObject(value)) checkObject(schema, value, oldValue, path, unknownFields, causes);
  // Like the API server, CEL rules run only on values that are structurally valid.
  if (causes.length === before) checkRules(schema, value, oldValue, path, causes);
}

/** A failed rule's message as the API server words it for the rule's reason. */
function ruleMessage(rule: ValidationRule, value: unknown): string {
  switch (rule.reason) {
    case 'FieldValueRequired':
      return `Required value: ${rule.message}`;
    case 'FieldValueForbidden':
      return `Forbidden: ${rule.message}`;
    case 'FieldValueInvalid':
    case 'FieldValueDuplicate':
    case undefined:
      return `Invalid value: ${quote(value)}: ${rule.message}`;
  }
}

type Add = (reason: FieldCause['reason'], message: string, field?: string) => void;

function checkString(schema: JSONSchemaProps, value: string, add: Add): void {
  const length = characterCount(value);
  if (schema.minLength !== undefined && length < schema.minLength) {
    add('FieldValueInvalid', `Invalid value: ${quote(value)}: must be at least ${schema.minLength} characters`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    add('FieldValueTooLong', `Too long: ${length} characters: may not be more than ${schema.maxLength} characters`);
  }
  if (schema.pattern !== undefined && !compilePattern(schema.pattern).test(value)) {
    add('FieldValueInvalid', `Invalid value: ${quote(value)}: must match '${schema.pattern}'`);
  }
}

function checkNumber(schema: JSONSchemaProps, value: number, add: Add): void {
  if (schema.minimum !== undefined && value < schema.minimum)
    add('FieldValueInvalid', `Invalid value: ${value}: must be >= ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum)
    add('FieldValueInvalid', `Invalid value: ${value}: must be <= ${schema.maximum}`);
}

function checkArray(
  schema: JSONSchemaProps,
  value: unknown[],
  oldValue: unknown,
  path: string,
  unknownFields: 'reject' | 'ignore',
  causes: FieldCause[],
): void {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: path,
      message: `Invalid value: ${value.length} items: must have at least ${schema.minItems} items`,
    });
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  }
  const identity = listItemIdentity(schema);
  const seen = new Set<string>();
  const oldItems = new Map<string, unknown>();
  if (identity && schema['x-kubernetes-list-type'] === 'map' && Array.isArray(oldValue)) {
    for (const item of oldValue) oldItems.set(identity(item), item);
  }
  value.forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    if (schema.items)
      walk(schema.items, item, identity ? oldItems.get(identity(item)) : undefined, itemPath, unknownFields, causes);
    if (!identity) return;
    const key = identity(item);
    if (seen.has(key))
      causes.push({ reason: 'FieldValueDuplicate', field: itemPath, message: `Duplicate value: ${key}` });
    seen.add(key);
  });
}

/** How items of a `set` or `map` list are told apart; undefined for atomic lists. */
function listItemIdentity(schema: JSONSchemaProps): ((item: unknown) => string) | undefined {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') return (item) => JSON.stringify(item);
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType === 'map' && keys) {
    return (item) =>
      JSON.stringify(Object.fromEntries(keys.map((key) => [key, isObject(item) ? item[key] : undefined])));
  }
  return undefined;
}

function checkObject(
  schema: JSONSchemaProps,
  value: Json,
  oldValue: unknown,
  path: string,
  unknownFields: 'reject' | 'ignore',
  causes: FieldCause[],
): void {
  const child = (key: string) => (path ? `${path}.${key}` : key);
  const old = isObject(oldValue) ? oldValue : undefined;
  for (const key of schema.required ?? []) {
    if (value[key] === undefined || value[key] === null)
      causes.push({ reason: 'FieldValueRequired', field: child(key), message: 'Required value' });
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${count}: must have at most ${schema.maxProperties} items`,
    });
  }
  for (const [key, item] of Object.entries(value)) {
    // The API server drops nulls of fields that are not nullable, so they count as absent.
    if (item === null || item === undefined) continue;
    const itemSchema = schema.properties?.[key] ?? schema.additionalProperties;
    if (itemSchema) walk(itemSchema, item, old?.[key], child(key), unknownFields, causes);
    // The root's metadata is ObjectMeta: its schema declares only name, the rest is not unknown.
    else if (
      unknownFields === 'reject' &&
      schema.properties &&
      !schema['x-kubernetes-preserve-unknown-fields'] &&
      path !== 'metadata'
    ) {
      causes.push({
        reason: 'FieldValueForbidden',
        field: child(key),
        message: 'Forbidden: unknown field: remove it, or check its spelling with kubectl explain',
      });
    }
  }
}

function checkRules(
  schema: JSONSchemaProps,
  value: unknown,
  oldValue: unknown,
  path: string,
  causes: FieldCause[],
): void {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    const transition = isTransitionRule(rule.rule);
    // Transition rules apply only to updates of a value that existed before.
    if (transition && oldValue === undefined) continue;
    const field = rule.fieldPath
      ? [path, rule.fieldPath.replace(/^\./, '')].filter(Boolean).join('.')
      : path || '<root>';
    try {
      if (!evaluateRule(rule.rule, value, transition ? oldValue : undefined)) {
        causes.push({ reason: rule.reason ?? 'FieldValueInvalid', field, message: ruleMessage(rule, value) });
      }
    } catch (error) {
      causes.push({
        reason: 'InternalError',
        field,
        message: `rule ${JSON.stringify(rule.rule)} could not be evaluated: ${(error as Error).message}`,
      });
    }
  }
}
