import { isObject, type Json, drop } from '../util/json.js';
import { fieldPath, indexPath } from './paths.js';
import { preservesUnknown, type Schema } from './types.js';

/** Fields every object (and every embedded resource) keeps whatever its schema says. */
const TYPE_META = ['apiVersion', 'kind', 'metadata'];

/**
 * Removes the fields a structural schema does not declare (unless it preserves unknown fields), in
 * place, and returns their paths (`spec.foo`), for fieldValidation Strict and Warn.
 */
export function prune(value: Json, schema: Schema | undefined, path: string, isRoot = false): string[] {
  if (!schema) return [];
  const unknown: string[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => unknown.push(...prune(item, schema.items, indexPath(path, index))));
  } else if (isObject(value)) {
    const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    const keepsMeta = isRoot || schema['x-kubernetes-embedded-resource'] === true;
    for (const key of Object.keys(value)) {
      // ObjectMeta has its own pruning (resources/metadata.ts); a schema's `metadata: {type: object}` says nothing.
      if (keepsMeta && key === 'metadata') continue;
      const declared = schema.properties?.[key];
      if (declared) unknown.push(...prune(value[key]!, declared, fieldPath(path, key)));
      else if (additional) unknown.push(...prune(value[key]!, additional, indexPath(path, key)));
      else if (keepsMeta && TYPE_META.includes(key)) continue;
      else if (!preservesUnknown(schema) && schema.additionalProperties !== true) {
        drop(value, key);
        unknown.push(fieldPath(path, key));
      }
    }
  }
  return unknown;
}
