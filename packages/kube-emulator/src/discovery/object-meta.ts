import {
  atomicList,
  integer,
  keyedList,
  object,
  setList,
  string,
  stringMap,
  timestamp,
  free,
} from '../schema/builders.js';
import type { Schema } from '../schema/types.js';

export const OBJECT_META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** ObjectMeta as OpenAPI documents describe it (for `kubectl explain <kind>.metadata`). */
export const objectMetaSchema: Schema = object(
  'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  {
    name: string('Name must be unique within a namespace.'),
    generateName: string(
      'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
    ),
    namespace: string('Namespace defines the space within which each name must be unique.'),
    uid: string('UID is the unique in time and space value for this object.'),
    resourceVersion: string('An opaque value that represents the internal version of this object.'),
    generation: integer('A sequence number representing a specific generation of the desired state.', {
      format: 'int64',
    }),
    creationTimestamp: timestamp(
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
    deletionTimestamp: timestamp('DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'),
    deletionGracePeriodSeconds: integer('Number of seconds allowed for this object to gracefully terminate.', {
      format: 'int64',
    }),
    labels: stringMap('Map of string keys and values that can be used to organize and categorize objects.'),
    annotations: stringMap('Annotations is an unstructured key value map stored with a resource.'),
    ownerReferences: keyedList(
      'List of objects depended by this object.',
      'uid',
      free('OwnerReference contains enough information to let you identify an owning object.'),
    ),
    finalizers: setList('Must be empty before the object is deleted from the registry.', { type: 'string' }),
    managedFields: atomicList(
      'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      free('A managedFields entry.'),
    ),
  },
);

export const LIST_META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

/** ListMeta, which every list's metadata refers to. */
export const listMetaSchema: Schema = {
  type: 'object',
  description:
    'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
  properties: {
    continue: {
      type: 'string',
      description: 'continue may be set if the user set a limit on the number of items returned.',
    },
    remainingItemCount: {
      type: 'integer',
      format: 'int64',
      description:
        'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
    },
    resourceVersion: {
      type: 'string',
      description:
        "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed.",
    },
    selfLink: {
      type: 'string',
      description: 'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
    },
  },
};
