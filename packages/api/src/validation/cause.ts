import { quoteText } from '../display.js';

/** A Kubernetes StatusCause: which field is wrong, and how. */
export interface FieldCause {
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueTypeInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden'
    | 'InternalError';
  /** The field path, e.g. `spec.resourceTags[2].key`. */
  field: string;
  message: string;
}

/** `spec.durationSeconds: Invalid value: 60: must be >= 900`, the way kubectl prints a cause. */
export const formatCause = (cause: FieldCause): string => `${cause.field}: ${cause.message}`;

/** Renders a value the way the API server quotes it in messages (strings with unsafe characters escaped). */
export function quote(value: unknown): string {
  if (typeof value === 'string') return quoteText(value);
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? '"array"' : '"object"';
  return String(value);
}
