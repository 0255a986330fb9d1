/** One place where the two answers disagree: a JSON path into the step's observed answer. */
export interface Difference {
  /** `status`, `body.metadata.labels.app`, `body.items[2].spec`, ... */
  path: string;
  emulator: unknown;
  real: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const child = (path: string, key: string | number): string =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$-]*$/.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;

/** Every leaf where `emulator` and `real` differ; a key present on one side only is a difference. */
export function differences(emulator: unknown, real: unknown, path = ''): Difference[] {
  if (Array.isArray(emulator) && Array.isArray(real)) {
    const found: Difference[] = [];
    for (let index = 0; index < Math.max(emulator.length, real.length); index++) {
      found.push(...differences(emulator[index], real[index], child(path, index)));
    }
    return found;
  }
  if (isObject(emulator) && isObject(real)) {
    const keys = [...new Set([...Object.keys(emulator), ...Object.keys(real)])].sort();
    return keys.flatMap((key) => differences(emulator[key], real[key], child(path, key)));
  }
  return Object.is(emulator, real) ? [] : [{ path: path.replace(/^\./, ''), emulator, real }];
}
