/** The value of `key` when it is an own entry of `record` (never one inherited, such as `constructor`). */
export const entry = (record: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
