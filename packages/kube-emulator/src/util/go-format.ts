/**
 * Values printed as kube-apiserver prints them in its messages: some as Go's `%#v` does
 * (`found new finalizers []string{"a"}`), the bad values of field errors as apimachinery does from
 * 1.35 on (`Invalid value: ["a"]`, JSON).
 */
import { isObject, text, type Json } from './json.js';

const goString = (value: string): string => JSON.stringify(value);

export const goStringSlice = (values: readonly string[]): string => `[]string{${values.map(goString).join(', ')}}`;

/** Go's json.Marshal of a value as given: keys in the order they come (a struct's fields), HTML characters escaped. */
export function goJson(value: Json): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** A Go map's (or an unstructured object's) JSON: json.Marshal sorts map keys, at every level. */
export function goMapJson(value: Json): string {
  const sorted = (item: Json): Json =>
    Array.isArray(item)
      ? item.map(sorted)
      : isObject(item)
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, sorted(item[key]!)]),
          )
        : item;
  return goJson(sorted(value));
}

/**
 * A field error's bad value (apimachinery's ErrorBody, 1.35 on): strings quoted, numbers and
 * booleans bare, anything else as Go's json.Marshal writes it (`null`, `["a"]`, `{"k":"v"}`).
 */
export function goFieldValue(value: Json): string {
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goMapJson(value);
}

/** A metav1.OwnerReference list as json.Marshal writes it: fields in declaration order, unset pointers left out. */
export const goOwnerReferencesJson = (references: readonly Json[]): string =>
  goJson(
    references.map((reference) => {
      const field = (key: string): string => (isObject(reference) ? text(reference[key]) : '');
      const pointer = (key: string): Json | undefined => (isObject(reference) ? reference[key] : undefined);
      return {
        apiVersion: field('apiVersion'),
        kind: field('kind'),
        name: field('name'),
        uid: field('uid'),
        ...(pointer('controller') === undefined || pointer('controller') === null
          ? {}
          : { controller: pointer('controller') }),
        ...(pointer('blockOwnerDeletion') === undefined || pointer('blockOwnerDeletion') === null
          ? {}
          : { blockOwnerDeletion: pointer('blockOwnerDeletion') }),
      };
    }),
  );
