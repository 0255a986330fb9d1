import { text } from '../util/json.js';
/** Field paths as the apiserver prints them: `spec.resourceTags[2].key`, `spec.additionalTags[team]`. */
export const fieldPath = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);
export const indexPath = (parent: string, index: number | string): string => `${parent}[${index}]`;

/** How a value is quoted in messages: strings as JSON, objects by their type. */
export function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return '"null"';
  if (typeof value === 'object') return Array.isArray(value) ? '"array"' : '"object"';
  return text(value);
}

/** The JSON type name of a value, as type errors name it. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
