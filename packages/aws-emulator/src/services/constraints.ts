import { validationError } from '../protocols/api-error.js';
import { characterCount } from '../text.js';

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

  /** A string's length in characters, as AWS counts it. */
  length(field: string, value: string | undefined, min: number, max: number): void {
    if (value === undefined) return;
    const length = characterCount(value);
    if (length < min) this.#fail(field, value, `Member must have length greater than or equal to ${min}`);
    else if (length > max) this.#fail(field, value, `Member must have length less than or equal to ${max}`);
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

  size(field: string, list: readonly unknown[] | undefined, min: number, max: number): void {
    if (list === undefined) return;
    const shown = `[${list.map(String).join(', ')}]`;
    if (list.length < min) this.#fail(field, shown, `Member must have length greater than or equal to ${min}`);
    else if (list.length > max) this.#fail(field, shown, `Member must have length less than or equal to ${max}`);
  }

  /** Throws one error with every failure found, under the service's validation error code. */
  throwIfAny(code: string): void {
    if (this.#failures.length > 0) throw validationError(code, this.#failures);
  }

  #fail(field: string, value: string, constraint: string): void {
    this.#failures.push(`Value '${value}' at '${field}' failed to satisfy constraint: ${constraint}`);
  }
}
