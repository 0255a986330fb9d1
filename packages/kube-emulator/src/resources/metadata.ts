import type { StatusCause } from '../api/status.js';
import { goFieldValue, goOwnerReferencesJson } from '../util/go-format.js';
import { arrayAt, isObject, objectAt, text, type Json, type JsonObject, drop } from '../util/json.js';
import { dnsSubdomainCauses, labelValueCauses, qualifiedNameCauses } from './names.js';

/** The fields of ObjectMeta; anything else under metadata is an unknown field. */
export const OBJECT_META = new Set([
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

/** Finalizers that need no domain: kube-apiserver's own. */
const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/**
 * kube-apiserver's warnings for the finalizers a custom resource gains (every one on create), sorted
 * as it lists them: a name without a path that is not a standard finalizer.
 */
export function finalizerWarnings(finalizers: Json[], old: Json[] = []): string[] {
  const added = [...new Set(finalizers.map(text))].filter((name) => !old.includes(name)).sort();
  return added
    .filter((name) => !name.includes('/') && !STANDARD_FINALIZERS.includes(name))
    .map(
      (name) =>
        `metadata.finalizers: ${JSON.stringify(name)}: prefer a domain-qualified finalizer name${name.includes('.') ? ' including a path (/)' : ''} to avoid accidental conflicts with other finalizer writers`,
    );
}

/**
 * Finalizer names: every kind checks a qualified name (the list's path, no index); built-in kinds
 * also refuse a name without a domain that is not a standard finalizer (with the index).
 */
export function finalizerCauses(finalizers: Json[], field: string, builtin: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  finalizers.forEach((finalizer, index) => {
    if (typeof finalizer !== 'string') return;
    if (builtin && !finalizer.includes('/') && !STANDARD_FINALIZERS.includes(finalizer)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: field === 'metadata.finalizers' ? `${field}[${index}]` : field,
        message: `Invalid value: ${JSON.stringify(finalizer)}: name is neither a standard finalizer name nor is it fully qualified`,
      });
    }
    causes.push(...qualifiedNameCauses(finalizer, field));
  });
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${goFieldValue(finalizers)}: finalizer orphan and foregroundDeletion cannot be both set`,
    });
  }
  return causes;
}

/** apimachinery's ValidateOwnerReferences: the four identity fields, and one controller at most. */
function ownerReferenceCauses(references: Json[]): StatusCause[] {
  const causes: StatusCause[] = [];
  let controller: string | undefined;
  references.forEach((reference, index) => {
    const value = (key: string): string => (isObject(reference) ? text(reference[key]) : '');
    const field = (key: string): string => `metadata.ownerReferences[${index}].${key}`;
    for (const key of ['apiVersion', 'kind', 'name', 'uid']) {
      if (value(key) === '')
        causes.push({ reason: 'FieldValueRequired', field: field(key), message: 'Required value: must not be empty' });
    }
    const parts = value('apiVersion').split('/');
    if (value('apiVersion') !== '' && (parts.length > 2 || parts.at(-1) === '')) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: field('apiVersion'),
        message: `Invalid value: ${JSON.stringify(value('apiVersion'))}: must be <group>/<version> or <version>`,
      });
    }
    if (isObject(reference) && reference.controller === true) {
      const name = `${value('kind')}/${value('name')}`;
      if (controller === undefined) controller = name;
      else {
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences',
          message: `Invalid value: ${goOwnerReferencesJson(references)}: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${name}`,
        });
      }
    }
  });
  return causes;
}

/** ObjectMeta validation common to all kinds: name, labels, annotations, finalizers, owner references. */
export function metadataCauses(metadata: JsonObject, validateName = true, builtin = true): StatusCause[] {
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
  causes.push(...finalizerCauses(arrayAt(metadata, 'finalizers') ?? [], 'metadata.finalizers', builtin));
  causes.push(...ownerReferenceCauses(arrayAt(metadata, 'ownerReferences') ?? []));
  return causes;
}

/** The label map of an object, for selectors. */
export const labelsOf = (object: JsonObject): Record<string, string> | undefined =>
  objectAt(object, 'metadata')?.labels as Record<string, string> | undefined;
