import type { StatusCause } from '../api/status.js';
import { arrayAt, isObject, objectAt, type JsonObject, drop } from '../util/json.js';
import { dnsSubdomainCauses, labelValueCauses, qualifiedNameCauses } from './names.js';

/** The fields of ObjectMeta; anything else under metadata is an unknown field. */
const OBJECT_META = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Drops unknown metadata fields in place and returns their paths. */
export function pruneMetadata(metadata: JsonObject): string[] {
  const unknown = Object.keys(metadata).filter((key) => !OBJECT_META.has(key));
  for (const key of unknown) drop(metadata, key);
  return unknown.map((key) => `metadata.${key}`);
}

const ANNOTATIONS_LIMIT = 256 * 1024;

/** ObjectMeta validation common to all kinds: name, labels, annotations, finalizers, owner references. */
export function metadataCauses(metadata: JsonObject, validateName = true): StatusCause[] {
  const causes: StatusCause[] = [];
  if (validateName) causes.push(...dnsSubdomainCauses(metadata.name, 'metadata.name'));
  for (const [key, value] of Object.entries(objectAt(metadata, 'labels') ?? {})) {
    causes.push(...qualifiedNameCauses(key, 'metadata.labels'));
    if (typeof value !== 'string') {
      causes.push({
        reason: 'FieldValueTypeInvalid',
        field: `metadata.labels[${key}]`,
        message: 'Invalid value: must be a string',
      });
    } else causes.push(...labelValueCauses(value, 'metadata.labels'));
  }
  const annotations = objectAt(metadata, 'annotations') ?? {};
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    causes.push(...qualifiedNameCauses(key.toLowerCase(), 'metadata.annotations', key));
    size += key.length + (typeof value === 'string' ? value.length : 0);
  }
  if (size > ANNOTATIONS_LIMIT) {
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `Too long: may not be more than ${ANNOTATIONS_LIMIT} bytes`,
    });
  }
  (arrayAt(metadata, 'finalizers') ?? []).forEach((finalizer, index) => {
    if (typeof finalizer === 'string') causes.push(...qualifiedNameCauses(finalizer, `metadata.finalizers[${index}]`));
  });
  (arrayAt(metadata, 'ownerReferences') ?? []).forEach((reference, index) => {
    for (const field of ['apiVersion', 'kind', 'name', 'uid']) {
      if (!isObject(reference) || typeof reference[field] !== 'string' || reference[field] === '') {
        causes.push({
          reason: 'FieldValueRequired',
          field: `metadata.ownerReferences[${index}].${field}`,
          message: 'Required value',
        });
      }
    }
  });
  return causes;
}

/** The label map of an object, for selectors. */
export const labelsOf = (object: JsonObject): Record<string, string> | undefined =>
  objectAt(object, 'metadata')?.labels as Record<string, string> | undefined;
