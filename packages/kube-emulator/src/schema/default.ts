import { clone, isObject, type Json, drop } from '../util/json.js';
import type { Schema } from './types.js';

/**
 * Applies `default:` values in place: a missing (or non-nullable null) field with a default gets it,
 * and defaults apply below defaulted values too, as the apiserver's structural defaulting does.
 */
export function applyDefaults(value: Json, schema: Schema | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (value[key] === null && !property.nullable) drop(value, key);
    if (value[key] === undefined && property.default !== undefined) value[key] = clone(property.default);
    if (value[key] !== undefined) applyDefaults(value[key], property);
  }
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (additional) {
    for (const key of Object.keys(value)) if (!schema.properties?.[key]) applyDefaults(value[key]!, additional);
  }
}
