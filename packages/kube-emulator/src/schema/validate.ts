import type { StatusCause } from '../api/status.js';
import { deepEqual, isObject, type Json, type JsonObject } from '../util/json.js';
import { checkRules } from './cel.js';
import { fieldPath, indexPath, jsonType, quote } from './paths.js';
import type { Schema } from './types.js';

const patterns = new Map<string, RegExp>();
/** Schema patterns use `\p{L}`-style classes: they are compiled as Unicode regular expressions. */
function patternOf(source: string): RegExp {
  let regex = patterns.get(source);
  if (!regex) patterns.set(source, (regex = new RegExp(source, 'u')));
  return regex;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const invalid = (path: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field: path,
  message: `Invalid value: ${quote(value)}: ${path} in body ${why}`,
});

function typeMatches(value: Json, schema: Schema): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || Number.isInteger(value);
  switch (schema.type) {
    case undefined:
      return true;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === schema.type;
  }
}

function stringCauses(value: string, schema: Schema, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  // Lengths count characters (code points), not UTF-16 units.
  const length = Array.from(value).length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    causes.push({
      reason: 'FieldValueTooLong',
      field: path,
      message: `Too long: may not be more than ${schema.maxLength} bytes`,
    });
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    causes.push(invalid(path, value, `should be at least ${schema.minLength} chars long`));
  }
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) {
    causes.push(invalid(path, value, `should match '${schema.pattern}'`));
  }
  if (schema.format === 'date-time' && !DATE_TIME.test(value)) {
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: ${quote(value)}: ${path} in body must be of type date-time: ${quote(value)}`,
    });
  }
  return causes;
}

function numberCauses(value: number, schema: Schema, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum) {
      causes.push(
        invalid(
          path,
          value,
          `should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
        ),
      );
    }
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum) {
      causes.push(
        invalid(path, value, `should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`),
      );
    }
  }
  if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0) {
    causes.push(invalid(path, value, `should be a multiple of ${schema.multipleOf}`));
  }
  return causes;
}

const mapKeyOf = (item: Json, keys: string[]): string =>
  JSON.stringify(keys.map((key) => (isObject(item) ? (item[key] ?? null) : null)));

const goMap = (item: Json, keys: string[]): string =>
  `map[string]interface {}{${keys.map((key) => `"${key}":${JSON.stringify(isObject(item) ? (item[key] ?? null) : null)}`).join(', ')}}`;

/** The old item a list item correlates with: only items of map lists, matched by their keys. */
function correlatedItem(item: Json, schema: Schema, old: Json | undefined): Json | undefined {
  const keys = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old)) return undefined;
  const key = mapKeyOf(item, keys);
  return old.find((candidate) => mapKeyOf(candidate, keys) === key);
}

function arrayCauses(value: Json[], schema: Schema, path: string, old: Json | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push(invalid(path, value.length, `should have at least ${schema.minItems} items`));
  }
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set' || schema.uniqueItems) {
    value.forEach((item, index) => {
      if (value.findIndex((other) => deepEqual(other, item)) < index) {
        causes.push({
          reason: 'FieldValueDuplicate',
          field: indexPath(path, index),
          message: `Duplicate value: ${JSON.stringify(item)}`,
        });
      }
    });
  }
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType === 'map' && keys) {
    const seen = new Set<string>();
    value.forEach((item, index) => {
      const key = mapKeyOf(item, keys);
      if (seen.has(key))
        causes.push({
          reason: 'FieldValueDuplicate',
          field: indexPath(path, index),
          message: `Duplicate value: ${goMap(item, keys)}`,
        });
      seen.add(key);
    });
  }
  if (schema.items) {
    value.forEach((item, index) => {
      causes.push(...validateValue(item, schema.items!, indexPath(path, index), correlatedItem(item, schema, old)));
    });
  }
  return causes;
}

function objectCauses(value: JsonObject, schema: Schema, path: string, old: Json | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const oldObject = isObject(old) ? old : undefined;
  for (const key of schema.required ?? []) {
    if (value[key] === undefined)
      causes.push({ reason: 'FieldValueRequired', field: fieldPath(path, key), message: 'Required value' });
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${count}: must have at most ${schema.maxProperties} items`,
    });
  }
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    causes.push(invalid(path, count, `should have at least ${schema.minProperties} properties`));
  }
  for (const [key, item] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    const child = declared ?? additional;
    if (!child) continue;
    const childPath = declared ? fieldPath(path, key) : indexPath(path, key);
    causes.push(...validateValue(item, child, childPath, oldObject?.[key]));
  }
  return causes;
}

function combinatorCauses(value: Json, schema: Schema, path: string): StatusCause[] {
  const passes = (sub: Schema): boolean => validateValue(value, sub, path, undefined).length === 0;
  const causes: StatusCause[] = [];
  for (const sub of schema.allOf ?? []) causes.push(...validateValue(value, sub, path, undefined));
  if (schema.anyOf && !schema.anyOf.some(passes))
    causes.push(invalid(path, value, 'must validate at least one schema (anyOf)'));
  if (schema.oneOf && schema.oneOf.filter(passes).length !== 1)
    causes.push(invalid(path, value, 'must validate one and only one schema (oneOf)'));
  if (schema.not && passes(schema.not)) causes.push(invalid(path, value, 'must not validate the schema (not)'));
  return causes;
}

/**
 * Validates a value against a structural schema the way the apiserver does for custom resources,
 * CEL rules included. `old` is the correlated old value on updates: an unchanged node is not
 * validated again (validation ratcheting), and transition rules compare against it.
 */
export function validateValue(value: Json, schema: Schema, path: string, old: Json | undefined): StatusCause[] {
  if (old !== undefined && deepEqual(value, old)) return [];
  if (value === null) {
    if (schema.nullable || schema.type === undefined) return [];
    return [
      {
        reason: 'FieldValueTypeInvalid',
        field: path,
        message: `Invalid value: "null": ${path} in body must be of type ${schema.type}: "null"`,
      },
    ];
  }
  if (!typeMatches(value, schema)) {
    const expected = schema['x-kubernetes-int-or-string'] ? 'integer,string' : schema.type!;
    return [
      {
        reason: 'FieldValueTypeInvalid',
        field: path,
        message: `Invalid value: "${jsonType(value)}": ${path} in body must be of type ${expected}: "${jsonType(value)}"`,
      },
    ];
  }
  const causes: StatusCause[] = [];
  if (schema.enum && !schema.enum.some((allowed) => deepEqual(allowed, value))) {
    const supported = schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ');
    causes.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
    });
  }
  if (typeof value === 'string') causes.push(...stringCauses(value, schema, path));
  else if (typeof value === 'number') causes.push(...numberCauses(value, schema, path));
  else if (Array.isArray(value)) causes.push(...arrayCauses(value, schema, path, old));
  else if (isObject(value)) causes.push(...objectCauses(value, schema, path, old));
  causes.push(...combinatorCauses(value, schema, path));
  causes.push(...checkRules(schema, value, old, path));
  return causes;
}
