import { goJsonType } from '../util/go-json.js';
import { isObject, type Json, type JsonObject } from '../util/json.js';
import type { Schema } from './types.js';

/** The Go type a scalar schema node decodes into, as encoding/json names it in errors. */
function scalarGoType(schema: Schema): string | undefined {
  // Timestamps decode through their own UnmarshalJSON (micro-time.ts), with other errors.
  if (schema.format === 'date-time') return undefined;
  if (schema.type === 'string') return schema.format === 'byte' ? '[]uint8' : 'string';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'integer') return schema.format === 'int64' ? 'int64' : 'int32';
  return undefined;
}

const fits = (value: Json, schema: Schema): boolean => {
  if (value === null) return true;
  if (schema.type === 'string') return typeof value === 'string';
  if (schema.type === 'boolean') return typeof value === 'boolean';
  return typeof value === 'number' && Number.isInteger(value);
};

/** encoding/json shows a number that does not fit an integer type, and only the JSON type otherwise. */
const shown = (value: Json, goType: string): string =>
  typeof value === 'number' && goType.startsWith('int') ? `number ${value}` : goJsonType(value);

/**
 * Go's encoding/json error for the first top-level field of a built-in kind's object that does not
 * decode into its Go struct field (a scalar, or a map of scalars such as ConfigMap.data), or
 * undefined. kube-apiserver answers it as a 400 before any validation. Deeper fields are left to
 * the schema's validation (their Go struct names are not known here).
 */
export function goTypeError(kind: string, schema: Schema, object: JsonObject): string | undefined {
  const error = (value: Json, field: string, goType: string): string =>
    `json: cannot unmarshal ${shown(value, goType)} into Go struct field ${kind}.${field} of type ${goType}`;
  for (const [field, value] of Object.entries(object)) {
    const property = schema.properties?.[field];
    if (!property || ['apiVersion', 'kind', 'metadata'].includes(field)) continue;
    const scalar = scalarGoType(property);
    if (scalar) {
      if (!fits(value, property)) return error(value, field, scalar);
      continue;
    }
    const entries = typeof property.additionalProperties === 'object' ? property.additionalProperties : undefined;
    const entryType = entries && !property.properties ? scalarGoType(entries) : undefined;
    if (!entryType || value === null) continue;
    if (!isObject(value)) return error(value, field, `map[string]${entryType}`);
    // A map's entries are named by the map's field alone (Go's error path has no map keys).
    const wrong = Object.values(value).find((entry) => !fits(entry, entries!));
    if (wrong !== undefined) return error(wrong, field, entryType);
  }
  return undefined;
}
