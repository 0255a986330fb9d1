import type { Schema } from './types.js';

/** Small builders for the emulator's own schemas of built-in kinds. */
export const string = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const integer = (description: string, extra: Schema = {}): Schema => ({
  type: 'integer',
  format: 'int32',
  description,
  ...extra,
});
export const boolean = (description: string): Schema => ({ type: 'boolean', description });
export const timestamp = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
export const stringMap = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});
export const object = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  description,
  properties,
  ...extra,
});
export const atomicList = (description: string, items: Schema): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});
export const setList = (description: string, items: Schema): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'set',
  'x-kubernetes-patch-strategy': 'merge',
});
/** A list of objects merged by a key, for server-side apply and strategic merge patch alike. */
export const keyedList = (description: string, key: string, items: Schema): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': [key],
  'x-kubernetes-patch-merge-key': key,
  'x-kubernetes-patch-strategy': 'merge',
});
/** Anything goes below this node (e.g. a CRD's own openAPIV3Schema). */
export const free = (description: string): Schema => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});

/** The top of every kind's schema: apiVersion, kind, metadata, then the kind's own fields. */
export const kindSchema = (description: string, properties: Record<string, Schema>, required: string[] = []): Schema =>
  object(
    description,
    {
      apiVersion: string('APIVersion defines the versioned schema of this representation of an object.'),
      kind: string('Kind is a string value representing the REST resource this object represents.'),
      metadata: { type: 'object', description: "Standard object's metadata." },
      ...properties,
    },
    required.length > 0 ? { required } : {},
  );
