/** Plain JSON values, as they travel on the wire and sit in the store. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deep copy of a JSON value (structuredClone is slower for plain JSON). */
export function clone<T extends Json>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => clone(item)) as T;
  if (isObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) copy[key] = clone(item);
    return copy as T;
  }
  return value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]));
  }
  return false;
}

/** The object at `object[key]`, created empty when absent. */
export function child(object: JsonObject, key: string): JsonObject {
  const existing = object[key];
  if (isObject(existing)) return existing;
  const created: JsonObject = {};
  object[key] = created;
  return created;
}

export const stringAt = (object: JsonObject | undefined, key: string): string | undefined => {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
};

export const objectAt = (object: JsonObject | undefined, key: string): JsonObject | undefined => {
  const value = object?.[key];
  return isObject(value) ? value : undefined;
};

export const arrayAt = (object: JsonObject | undefined, key: string): Json[] | undefined => {
  const value = object?.[key];
  return Array.isArray(value) ? value : undefined;
};

/** A JSON value as text: strings as they are, numbers and booleans printed, anything else empty. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : '';
}

/** Deletes a property named at run time (the one place where a computed key is deleted). */
export function drop(object: JsonObject, key: string): void {
  Reflect.deleteProperty(object, key);
}
