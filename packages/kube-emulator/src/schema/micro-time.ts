import { isObject, type Json } from '../util/json.js';
import type { Schema } from './types.js';

/** Go's RFC3339Micro: how kube-apiserver decodes a metav1.MicroTime (exactly six fractional digits). */
const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
/** The layout's elements, in order, each with what the value must start with there. */
const ELEMENTS: [string, RegExp][] = [
  ['2006', /^\d{4}/],
  ['-', /^-/],
  ['01', /^\d{2}/],
  ['-', /^-/],
  ['02', /^\d{2}/],
  ['T', /^T/],
  ['15', /^\d{2}/],
  [':', /^:/],
  ['04', /^\d{2}/],
  [':', /^:/],
  ['05', /^\d{2}/],
  ['.000000', /^\.\d{6}/],
  ['Z07:00', /^(?:Z|[+-]\d{2}:\d{2})/],
];

const microTimes = new WeakSet<Schema>();

/** A metav1.MicroTime field: in OpenAPI a date-time string like any other, but decoded with LAYOUT. */
export function microTime(description: string): Schema {
  const schema: Schema = { type: 'string', format: 'date-time', description };
  microTimes.add(schema);
  return schema;
}

const q = (text: string): string => JSON.stringify(text);

/** Go's time.Parse error for a value that does not fit LAYOUT: the first element it fails at, or extra text. */
function layoutError(value: string): string {
  let rest = value;
  for (const [element, start] of ELEMENTS) {
    const match = start.exec(rest);
    if (!match) return `parsing time ${q(value)} as ${q(LAYOUT)}: cannot parse ${q(rest)} as ${q(element)}`;
    rest = rest.slice(match[0].length);
  }
  return `parsing time ${q(value)}: extra text: ${q(rest)}`;
}

const MICRO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{6})(Z|[+-]\d{2}:\d{2})$/;

/** The value as kube-apiserver stores it (UTC, six digits), or Go's time.Parse error in its words. */
export function parseMicroTime(value: string): { stored: string } | { error: string } {
  const match = MICRO_TIME.exec(value);
  if (!match) return { error: layoutError(value) };
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map(Number);
  const outOfRange = (
    [
      ['month', month < 1 || month > 12],
      ['day', day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()],
      ['hour', hour > 23],
      ['minute', minute > 59],
      ['second', second > 59],
    ] as const
  ).find(([, bad]) => bad);
  if (outOfRange) return { error: `parsing time ${q(value)}: ${outOfRange[0]} out of range` };
  // Offsets are whole minutes: the fraction is the same in UTC.
  const utc = new Date(value.slice(0, 19) + match[8]!);
  return { stored: `${utc.toISOString().slice(0, 19)}${match[7]!}Z` };
}

/**
 * Decodes the MicroTime fields of an incoming object as kube-apiserver does: each is stored in UTC
 * with six digits; the first that does not parse is returned as Go's error, and the write refused.
 */
export function decodeMicroTimes(schema: Schema | undefined, value: Json): string | undefined {
  if (!schema) return undefined;
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const child = schema.properties?.[key];
      if (child && microTimes.has(child) && typeof item === 'string') {
        const parsed = parseMicroTime(item);
        if ('error' in parsed) return parsed.error;
        value[key] = parsed.stored;
      } else {
        const error = decodeMicroTimes(child, item);
        if (error) return error;
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) {
      const error = decodeMicroTimes(schema.items, item);
      if (error) return error;
    }
  }
  return undefined;
}
