import type { StatusCause } from '../api/status.js';
import { goFieldValue, goMapJson } from '../util/go-format.js';
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

/**
 * One walk of the schema: the structural checks, or the CEL rules (kube-apiserver runs them only
 * when the structural checks found nothing blocking). Messages name paths from `messageBase` (a
 * /status write validates the status alone: `accountID in body ...`, field `status.accountID`).
 */
interface Pass {
  cel: boolean;
  messageBase: string;
}

const shown = (path: string, pass: Pass): string =>
  pass.messageBase && path.startsWith(`${pass.messageBase}.`) ? path.slice(pass.messageBase.length + 1) : path;

const invalid = (path: string, value: unknown, why: string, pass: Pass): StatusCause => ({
  reason: 'FieldValueInvalid',
  field: path,
  message: `Invalid value: ${quote(value)}: ${shown(path, pass)} in body ${why}`,
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

function stringCauses(value: string, schema: Schema, path: string, pass: Pass): StatusCause[] {
  const causes: StatusCause[] = [];
  // Lengths count characters (code points), not UTF-16 units.
  const length = Array.from(value).length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    // kube-apiserver stops there: no pattern is matched against a string that is too long.
    return [
      { reason: 'FieldValueTooLong', field: path, message: `Too long: may not be more than ${schema.maxLength} bytes` },
    ];
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    causes.push(invalid(path, value, `should be at least ${schema.minLength} chars long`, pass));
  }
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) {
    causes.push(invalid(path, value, `should match '${schema.pattern}'`, pass));
  }
  if (schema.format === 'date-time' && !DATE_TIME.test(value)) {
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: ${quote(value)}: ${shown(path, pass)} in body must be of type date-time: ${quote(value)}`,
    });
  }
  return causes;
}

/** The integer formats CRDs keep from 1.37 on (earlier ones dropped every integer format). */
const INTEGER_RANGES: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
};
const integerFormat = (schema: Schema): string | undefined =>
  schema.type === 'integer' && schema.format !== undefined && schema.format in INTEGER_RANGES
    ? schema.format
    : undefined;

function numberCauses(value: number, schema: Schema, path: string, pass: Pass): StatusCause[] {
  const causes: StatusCause[] = [];
  const format = integerFormat(schema);
  const range = format && INTEGER_RANGES[format];
  if (range && (!Number.isInteger(value) || value < range[0] || value > range[1])) {
    // kube-openapi's range check of the value itself, which names no field.
    causes.push({
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message: `Invalid value: "": Checked value must be of type integer with format ${format} in ${shown(path, pass)}`,
    });
  }
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum) {
      causes.push(
        invalid(
          path,
          value,
          `should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
          pass,
        ),
      );
    }
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum) {
      causes.push(
        invalid(
          path,
          value,
          `should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
          pass,
        ),
      );
    }
  }
  if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0) {
    causes.push(invalid(path, value, `should be a multiple of ${schema.multipleOf}`, pass));
  }
  return causes;
}

const mapKeyOf = (item: Json, keys: string[]): string =>
  JSON.stringify(keys.map((key) => (isObject(item) ? (item[key] ?? null) : null)));

/** The map keys of an item, as the Duplicate error's value (a map: json.Marshal sorts its keys). */
const mapKeys = (item: Json, keys: string[]): string =>
  goMapJson(Object.fromEntries(keys.map((key) => [key, isObject(item) ? (item[key] ?? null) : null])));

/** The old item a list item correlates with: only items of map lists, matched by their keys. */
function correlatedItem(item: Json, schema: Schema, old: Json | undefined): Json | undefined {
  const keys = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old)) return undefined;
  const key = mapKeyOf(item, keys);
  return old.find((candidate) => mapKeyOf(candidate, keys) === key);
}

function arrayCauses(value: Json[], schema: Schema, path: string, old: Json | undefined, pass: Pass): StatusCause[] {
  const causes: StatusCause[] = [];
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push(invalid(path, value.length, `should have at least ${schema.minItems} items`, pass));
  }
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set' || schema.uniqueItems) {
    value.forEach((item, index) => {
      if (value.findIndex((other) => deepEqual(other, item)) < index) {
        causes.push({
          reason: 'FieldValueDuplicate',
          field: indexPath(path, index),
          message: `Duplicate value: ${goFieldValue(item)}`,
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
          message: `Duplicate value: ${mapKeys(item, keys)}`,
        });
      seen.add(key);
    });
  }
  if (schema.items) {
    value.forEach((item, index) => {
      causes.push(
        ...validateValue(item, schema.items!, indexPath(path, index), correlatedItem(item, schema, old), pass),
      );
    });
  }
  return causes;
}

function objectCauses(
  value: JsonObject,
  schema: Schema,
  path: string,
  old: Json | undefined,
  pass: Pass,
): StatusCause[] {
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
    causes.push(invalid(path, count, `should have at least ${schema.minProperties} properties`, pass));
  }
  for (const [key, item] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    const child = declared ?? additional;
    if (!child) continue;
    // Map entries are named like fields (`spec.additionalTags.team`), as kube-openapi names them.
    causes.push(...validateValue(item, child, fieldPath(path, key), oldObject?.[key], pass));
  }
  return causes;
}

function combinatorCauses(value: Json, schema: Schema, path: string, pass: Pass): StatusCause[] {
  const passes = (sub: Schema): boolean => validateValue(value, sub, path, undefined, pass).length === 0;
  const causes: StatusCause[] = [];
  for (const sub of schema.allOf ?? []) causes.push(...validateValue(value, sub, path, undefined, pass));
  if (schema.anyOf && !schema.anyOf.some(passes))
    causes.push(invalid(path, value, 'must validate at least one schema (anyOf)', pass));
  if (schema.oneOf && schema.oneOf.filter(passes).length !== 1)
    causes.push(invalid(path, value, 'must validate one and only one schema (oneOf)', pass));
  if (schema.not && passes(schema.not)) causes.push(invalid(path, value, 'must not validate the schema (not)', pass));
  return causes;
}

/** One node and what is below it, in one pass (the structural checks, or the CEL rules). */
function validateValue(value: Json, schema: Schema, path: string, old: Json | undefined, pass: Pass): StatusCause[] {
  if (old !== undefined && deepEqual(value, old)) return [];
  if (pass.cel) return celCauses(value, schema, path, old, pass);
  if (value === null) {
    if (schema.nullable || schema.type === undefined) return [];
    return [
      {
        reason: 'FieldValueTypeInvalid',
        field: path,
        message: `Invalid value: "null": ${shown(path, pass)} in body must be of type ${schema.type}: "null"`,
      },
    ];
  }
  const causes: StatusCause[] = [];
  if (!typeMatches(value, schema)) {
    // An integer's format is checked first against what is neither a string nor a list: a fraction is a float64, the rest has no format.
    const format = typeof value === 'string' || Array.isArray(value) ? undefined : integerFormat(schema);
    const expected = format ?? (schema['x-kubernetes-int-or-string'] ? 'integer,string' : schema.type!);
    const actual = format ? (typeof value === 'number' ? 'float64' : '') : jsonType(value);
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: "${actual}": ${shown(path, pass)} in body must be of type ${expected}: "${actual}"`,
    });
    // A number where an integer belongs is still held to the integer's bounds; other types stop here.
    return typeof value === 'number' && schema.type === 'integer'
      ? [...causes, ...numberCauses(value, schema, path, pass)]
      : causes;
  }
  if (schema.enum && !schema.enum.some((allowed) => deepEqual(allowed, value))) {
    const supported = schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ');
    causes.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
    });
  }
  if (typeof value === 'string') causes.push(...stringCauses(value, schema, path, pass));
  else if (typeof value === 'number') causes.push(...numberCauses(value, schema, path, pass));
  else if (Array.isArray(value)) causes.push(...arrayCauses(value, schema, path, old, pass));
  else if (isObject(value)) causes.push(...objectCauses(value, schema, path, old, pass));
  causes.push(...combinatorCauses(value, schema, path, pass));
  return causes;
}

/** The CEL rules of a node and of the nodes below it (on values the structural pass found sound). */
function celCauses(value: Json, schema: Schema, path: string, old: Json | undefined, pass: Pass): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => {
      causes.push(
        ...validateValue(item, schema.items!, indexPath(path, index), correlatedItem(item, schema, old), pass),
      );
    });
  } else if (isObject(value)) {
    const oldObject = isObject(old) ? old : undefined;
    for (const [key, item] of Object.entries(value)) {
      const child =
        schema.properties?.[key] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (child) causes.push(...validateValue(item, child, fieldPath(path, key), oldObject?.[key], pass));
    }
  }
  if (value !== null) causes.push(...checkRules(schema, value, old, path));
  return causes;
}

/** Kinds of error after which kube-apiserver does not run the CEL rules. */
const BLOCKING = [
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
];

const hasRules = (schema: Schema | undefined): boolean =>
  schema !== undefined &&
  (schema['x-kubernetes-validations'] !== undefined ||
    Object.values(schema.properties ?? {}).some(hasRules) ||
    hasRules(schema.items) ||
    (typeof schema.additionalProperties === 'object' && hasRules(schema.additionalProperties)));

/**
 * Validates an object against its structural schema the way kube-apiserver does for custom
 * resources: the schema's checks, then its CEL rules, which are skipped (with a cause saying so) when
 * a check failed in a way that blocks them (a missing, too long or wrongly typed value...). `old` is
 * the old object on updates: an unchanged node is not validated again (validation ratcheting), and
 * transition rules compare against it. `status` validates a /status write: the status alone by the
 * schema, messages naming paths from there.
 */
export function validateObject(
  object: JsonObject,
  schema: Schema,
  old: JsonObject | undefined,
  status = false,
): StatusCause[] {
  const structural: Pass = { cel: false, messageBase: status ? 'status' : '' };
  const causes =
    status && schema.properties?.status
      ? object.status === undefined
        ? []
        : validateValue(object.status, schema.properties.status, 'status', old?.status, structural)
      : validateValue(object, schema, '', old, structural);
  if (!hasRules(schema)) return causes;
  if (causes.some((cause) => BLOCKING.includes(cause.reason ?? ''))) {
    return [
      ...causes,
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message:
          'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  }
  return [...causes, ...validateValue(object, schema, '', old, { cel: true, messageBase: '' })];
}
