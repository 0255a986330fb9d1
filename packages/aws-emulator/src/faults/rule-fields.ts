import { ControlRequestError } from '../errors.js';
import { isRecord } from '../iam/policy.js';

/** Readers for the fields of a fault or throttle rule; a bad value is refused with its name and what it must be. */

export function ruleFields(input: unknown, what: string, example: string): Record<string, unknown> {
  if (!isRecord(input)) throw new ControlRequestError(400, `${what} must be a JSON object`, `For example ${example}.`);
  return input;
}

export function numberField(
  fields: Record<string, unknown>,
  name: string,
  range: { min: number; max: number; integer?: boolean },
): number | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  const valid =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= range.min &&
    value <= range.max &&
    (range.integer !== true || Number.isInteger(value));
  if (!valid)
    refuse(name, value, `${range.integer === true ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}`);
  return value;
}

export function stringField(
  fields: Record<string, unknown>,
  name: string,
  pattern: RegExp,
  what: string,
): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) refuse(name, value, what);
  return value;
}

function refuse(name: string, value: unknown, what: string): never {
  throw new ControlRequestError(400, `${name} must be ${what}, got ${JSON.stringify(value)}`, `Fix "${name}".`);
}
