import type { Column } from '../resources/types.js';
import { isObject, objectAt, text, type JsonObject } from '../util/json.js';
import { age } from './age.js';

/** ObjectMeta's creationTimestamp documentation, as kube-apiserver describes its age columns. */
const CREATION_TIMESTAMP =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const nameColumn = (priority = 0): Column => ({
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority,
  cell: (object) => objectAt(object, 'metadata')?.name ?? '',
});

export const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: CREATION_TIMESTAMP,
  priority: 0,
  cell: (object) => age(objectAt(object, 'metadata')?.creationTimestamp),
};

/** kubectl's CREATED AT column (CRDs, RBAC roles), a date rather than an age. */
export const createdAtColumn: Column = {
  name: 'Created At',
  type: 'date',
  description: CREATION_TIMESTAMP,
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
