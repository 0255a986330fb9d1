import { isObject, type Json, type JsonObject } from '../util/json.js';

/**
 * A field of the Go struct a body decodes into: the struct that holds it, the JSON it takes, and
 * its Go type's name when that is not the JSON type's (`types.UID`, `v1.TokenRequestSpec`).
 */
export interface GoField {
  path: string[];
  struct: string;
  type: 'string' | '[]string' | 'int64' | 'object';
  goType?: string;
}

const fits = (value: Json, type: GoField['type']): boolean => {
  if (value === null) return true;
  if (type === 'string') return typeof value === 'string';
  if (type === 'int64') return typeof value === 'number' && Number.isSafeInteger(value);
  if (type === '[]string') return Array.isArray(value);
  return isObject(value);
};

/** encoding/json's UnmarshalTypeError: a number that does not fit an integer shows itself. */
function typeError(field: GoField, value: Json, goType: string): string {
  const shown =
    typeof value === 'number' && goType === 'int64'
      ? `number ${value}`
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'boolean'
          ? 'bool'
          : typeof value;
  return `json: cannot unmarshal ${shown} into Go struct field ${field.struct}.${field.path.join('.')} of type ${goType}`;
}

/**
 * The error of Go's encoding/json for the first field of a body that does not decode into its
 * struct (kube-apiserver answers 400 with it), or undefined. Parents come before their fields.
 */
export function goDecodeError(body: JsonObject, fields: GoField[]): string | undefined {
  for (const field of fields) {
    let value: Json | undefined = body;
    for (const key of field.path) value = isObject(value) ? value[key] : undefined;
    if (value === undefined) continue;
    if (!fits(value, field.type)) return typeError(field, value, field.goType ?? field.type);
    if (field.type === '[]string' && Array.isArray(value)) {
      const item = value.find((entry) => typeof entry !== 'string' && entry !== null);
      if (item !== undefined) return typeError(field, item, 'string');
    }
  }
  return undefined;
}
