import { ApiError } from '../../protocols/api-error.js';

/** Typed reads of a JSON 1.1 input; a value of the wrong type is a SerializationException, as AWS answers. */

function wrongType(name: string, expected: string): ApiError {
  return new ApiError('SerializationException', `${name} must be ${expected}.`);
}

export function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrongType(name, 'a string');
  return value;
}

export function optionalNumber(input: Record<string, unknown>, name: string): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw wrongType(name, 'a number');
  return value;
}

export function optionalStrings(input: Record<string, unknown>, name: string): string[] | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw wrongType(name, 'a list of strings');
  return value;
}

export function optionalRecords(input: Record<string, unknown>, name: string): Record<string, unknown>[] | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    !value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
  ) {
    throw wrongType(name, 'a list of objects');
  }
  return value as Record<string, unknown>[];
}

export function optionalStringMap(input: Record<string, unknown>, name: string): [string, string][] | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw wrongType(name, 'a map of strings');
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === 'string')) throw wrongType(name, 'a map of strings');
  return entries as [string, string][];
}
