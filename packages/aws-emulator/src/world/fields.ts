import { InvalidWorldError } from '../errors.js';
import { isRecord } from '../iam/policy.js';

/** Small readers for the world file: each checks one field and names it (`accounts[0].users[1].name`) when wrong. */

export function fail(path: string, problem: string): never {
  throw new InvalidWorldError(`${path}: ${problem}`);
}

export function fieldsOf(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isRecord(value)) fail(path, `must be an object with the fields ${allowed.join(', ')}`);
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) fail(`${path}.${unknown}`, `is not a known field (known: ${allowed.join(', ')})`);
  return value;
}

/** An optional list: absent means empty. */
export function listOf(value: unknown, path: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(path, 'must be a list');
  return value;
}

export function text(value: unknown, path: string, rule?: { pattern: RegExp; describe: string }): string {
  if (typeof value !== 'string') fail(path, `must be a string${rule ? ` (${rule.describe})` : ''}`);
  if (rule !== undefined && !rule.pattern.test(value)) {
    fail(path, `${JSON.stringify(value)} is not valid: must be ${rule.describe}`);
  }
  return value;
}

export function integer(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(path, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function unique(seen: Set<string>, value: string, path: string, what: string): void {
  if (seen.has(value)) fail(path, `${what} ${JSON.stringify(value)} appears more than once; each must be unique`);
  seen.add(value);
}
