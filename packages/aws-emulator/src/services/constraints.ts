import { validationError } from '../protocols/api-error.js';
import { characterCount } from '../text.js';

/** How AWS shows a member marked sensitive in validation messages. */
const SENSITIVE = '*** Sensitive Data Redacted ***';

/**
 * Collects an input's constraint failures in AWS's words (`Value 'x' at 'roleSessionName' failed to
 * satisfy constraint: Member must have length greater than or equal to 2`), so one error reports them all.
 */
export class Constraints {
  readonly #failures: string[] = [];

  required(field: string, value: unknown): boolean {
    if (value !== undefined) return true;
    this.#failures.push(`Value null at '${field}' failed to satisfy constraint: Member must not be null`);
    return false;
  }

  /** A string's length in characters, as AWS counts it; a sensitive value (a token) is never shown. */
  length(
    field: string,
    value: string | undefined,
    min: number,
    max: number,
    options: { sensitive?: boolean } = {},
  ): void {
    if (value === undefined) return;
    const length = characterCount(value);
    const shownValue = options.sensitive ? SENSITIVE : value;
    if (length < min) this.#fail(field, shownValue, `Member must have length greater than or equal to ${min}`);
    else if (length > max) this.#fail(field, shownValue, `Member must have length less than or equal to ${max}`);
  }

  pattern(field: string, value: string | undefined, pattern: RegExp, shown: string): void {
    if (value !== undefined && !pattern.test(value)) {
      this.#fail(field, value, `Member must satisfy regular expression pattern: ${shown}`);
    }
  }

  range(field: string, value: number | undefined, min: number, max: number): void {
    if (value === undefined) return;
    if (!Number.isInteger(value)) this.#fail(field, String(value), 'Member must be an integer');
    else if (value < min) this.#fail(field, String(value), `Member must have value greater than or equal to ${min}`);
    else if (value > max) this.#fail(field, String(value), `Member must have value less than or equal to ${max}`);
  }

  /** A list's length; its items are shown as AWS shows them (structures as `{Key=k, Value=v}`). */
  size(field: string, list: readonly unknown[] | undefined, min: number, max: number): void {
    if (list !== undefined) this.#count(field, list.length, shown(list), min, max);
  }

  /** A map's size, the map shown as AWS shows it: `{key=value, ...}`. */
  mapSize(field: string, entries: readonly (readonly [string, string])[] | undefined, min: number, max: number): void {
    if (entries !== undefined) this.#count(field, entries.length, shown(Object.fromEntries(entries)), min, max);
  }

  /** Throws one error with every failure found, under the service's validation error code. */
  throwIfAny(code: string): void {
    if (this.#failures.length > 0) throw validationError(code, this.#failures);
  }

  #count(field: string, count: number, value: string, min: number, max: number): void {
    if (count < min) this.#fail(field, value, `Member must have length greater than or equal to ${min}`);
    else if (count > max) this.#fail(field, value, `Member must have length less than or equal to ${max}`);
  }

  #fail(field: string, value: string, constraint: string): void {
    this.#failures.push(`Value '${value}' at '${field}' failed to satisfy constraint: ${constraint}`);
  }
}

/** A value as AWS's validation messages show it (Java's way): lists `[a, b]`, maps and structures `{k=v}`. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shown).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${key}=${shown(item)}`)
      .join(', ')}}`;
  }
  return String(value);
}
