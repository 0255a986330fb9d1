import type { Column } from '../resources/types.js';
import { isObject, objectAt, text, type JsonObject } from '../util/json.js';
import { age } from './age.js';

export const nameColumn = (priority = 0): Column => ({
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority,
  cell: (object) => objectAt(object, 'metadata')?.name ?? '',
});

export const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (object) => age(objectAt(object, 'metadata')?.creationTimestamp),
};

/** kubectl's CREATED AT column (CRDs, RBAC roles), a date rather than an age. */
export const createdAtColumn: Column = {
  name: 'Created At',
  type: 'date',
  description: 'When the object was created',
  priority: 0,
  cell: (object) => objectAt(object, 'metadata')?.creationTimestamp ?? null,
};

/** A label map as selectors print it (`app=x,tier=y`), `<none>` when empty. */
export const labelPairs = (labels: JsonObject | undefined): string =>
  Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${text(value)}`)
    .join(',') || '<none>';

/** The number of entries of a map or list field, e.g. a ConfigMap's DATA column. */
export const countOf = (...values: unknown[]): number =>
  values.reduce<number>(
    (sum, value) => sum + (Array.isArray(value) ? value.length : isObject(value) ? Object.keys(value).length : 0),
    0,
  );

export const column = (
  name: string,
  type: string,
  description: string,
  cell: Column['cell'],
  priority = 0,
): Column => ({ name, type, description, priority, cell });
