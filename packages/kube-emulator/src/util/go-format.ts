/**
 * Values printed as Go's `%#v` prints them, for the messages kube-apiserver builds that way
 * (`Invalid value: []string{"a"}`). Pointers print as an address (kube-apiserver's differ per run).
 */
import { isObject, text, type Json } from './json.js';

export const goString = (value: string): string => JSON.stringify(value);

export const goStringSlice = (values: readonly string[]): string => `[]string{${values.map(goString).join(', ')}}`;

/** `map[string]string{"a":"1", "b":"2"}`: Go prints map keys sorted. */
export const goStringMap = (map: Record<string, Json>): string =>
  `map[string]string{${Object.keys(map)
    .sort()
    .map((key) => `${goString(key)}:${goString(text(map[key]))}`)
    .join(', ')}}`;

let address = 0xc000100000;
/** A pointer field of Go type `*type`: `(*type)(nil)` when absent, else some address (there is no meaningful one). */
export const goPointer = (type: string, value: unknown): string =>
  value === undefined || value === null ? `(*${type})(nil)` : `(*${type})(0x${(address += 8).toString(16)})`;
const goBoolPointer = (value: Json | undefined): string => goPointer('bool', value);

/** `[]v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", ...}}`. */
export const goOwnerReferences = (references: readonly Json[]): string =>
  `[]v1.OwnerReference{${references
    .map((reference) => {
      const field = (key: string): string => goString(isObject(reference) ? text(reference[key]) : '');
      const pointer = (key: string): string => goBoolPointer(isObject(reference) ? reference[key] : undefined);
      return `v1.OwnerReference{APIVersion:${field('apiVersion')}, Kind:${field('kind')}, Name:${field('name')}, UID:${field('uid')}, Controller:${pointer('controller')}, BlockOwnerDeletion:${pointer('blockOwnerDeletion')}}`;
    })
    .join(', ')}}`;
