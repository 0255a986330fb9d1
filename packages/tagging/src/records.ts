/** The value of `key` when it is an own entry of `record` (never one inherited, such as `constructor`). */
export const entry = (record: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** Sets `key` as an own entry of `record`: `__proto__`, a valid tag key, is defined (assigning it would set the prototype). */
export function setEntry(record: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true });
  else record[key] = value;
}
