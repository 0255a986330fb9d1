import { randomUUID } from 'node:crypto';
import { ApiError, badRequest, invalid, storageError, type StatusCause } from '../api/status.js';
import { applyDefaults } from '../schema/default.js';
import { goTypeError } from '../schema/go-types.js';
import { decodeMicroTimes } from '../schema/micro-time.js';
import { omitEmpty, omitEmptyMetadata } from '../schema/omit-empty.js';
import { prune } from '../schema/prune.js';
import type { Schema } from '../schema/types.js';
import { validateObject } from '../schema/validate.js';
import { arrayAt, clone, deepEqual, isObject, objectAt, type Json, type JsonObject, text, drop } from '../util/json.js';
import { goStringSlice } from '../util/go-format.js';
import { finalizerWarnings, metadataCauses, pruneMetadata } from './metadata.js';
import { apiVersionOf, type ResourceDef } from './types.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** How a write treats unknown fields, and where it reports warnings. */
export interface Admission {
  fieldValidation: FieldValidation;
  warnings: string[];
  /** The fields the JSON body names twice (`data`, `data.a`): unknown fields to the strict decoder. */
  duplicateFields?: string[];
}

export const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

const NAME_CHARACTERS = 'bcdfghjklmnpqrstvwxz2456789';
export const generatedSuffix = (): string =>
  Array.from({ length: 5 }, () => NAME_CHARACTERS[Math.floor(Math.random() * NAME_CHARACTERS.length)]).join('');

/** Go's package of a group's internal types, as conversion errors name it (`core.ConfigMap`). */
const internalPackage = (group: string): string => (group === '' ? 'core' : group.split('.')[0]!);

/** The refusal of a body whose apiVersion or kind is not the resource's, worded as kube-apiserver words it. */
function wrongType(resource: ResourceDef, body: JsonObject): ApiError {
  const apiVersion = apiVersionOf(resource);
  const kind = text(body.kind);
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    const message = `the API version in the data (${text(body.apiVersion)}) does not match the expected API version (${apiVersion})`;
    // A custom resource's body is decoded without a schema for that version first: everything in it is unknown.
    const unknown = Object.keys(body).filter((key) => !['apiVersion', 'kind', 'metadata'].includes(key));
    return new ApiError(
      400,
      'BadRequest',
      message,
      undefined,
      resource.crdName === undefined ? [] : unknown.map((key) => `unknown field "${key}"`),
    );
  }
  if (resource.crdName !== undefined) {
    return invalid({ group: resource.group, kind }, text(objectAt(body, 'metadata')?.name), [
      {
        reason: 'FieldValueInvalid',
        field: 'kind',
        message: `Invalid value: ${JSON.stringify(kind)}: must be ${resource.kind}`,
      },
    ]);
  }
  return badRequest(
    `${kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: converting (${resource.version}.${kind}) to (${internalPackage(resource.group)}.${resource.kind}): unknown conversion`,
  );
}

/** A built-in kind's body is decoded into Go structs: a metadata string field holding another type is a 400. */
function checkMetadataStrings(resource: ResourceDef, metadata: JsonObject | undefined): void {
  for (const field of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid']) {
    const value = metadata?.[field];
    if (value === undefined || value === null || typeof value === 'string') continue;
    const type = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: json: cannot unmarshal ${type} into Go struct field ObjectMeta.metadata.${field} of type string`,
    );
  }
}

/** The request body as an object of this resource's kind, or 400 Bad Request. */
export function checkBody(resource: ResourceDef, body: unknown): JsonObject {
  if (!isObject(body)) throw badRequest('the request body must be a JSON object');
  const apiVersion = apiVersionOf(resource);
  if (
    (body.apiVersion !== undefined && body.apiVersion !== apiVersion) ||
    (body.kind !== undefined && body.kind !== resource.kind)
  ) {
    throw wrongType(resource, body);
  }
  if (body.metadata !== undefined && !isObject(body.metadata)) throw badRequest('metadata must be an object');
  if (resource.crdName === undefined) checkMetadataStrings(resource, objectAt(body, 'metadata'));
  return { ...clone(body), apiVersion, kind: resource.kind, metadata: clone(body.metadata ?? {}) };
}

/** Pruning with fieldValidation: Strict rejects unknown (and duplicate) fields, Warn reports them, Ignore drops them silently. */
export function pruneUnknown(resource: ResourceDef, object: JsonObject, admission: Admission): void {
  const unknown = [...pruneMetadata(objectAt(object, 'metadata')!), ...prune(object, resource.schema, '', true)];
  const listed = [
    ...(admission.duplicateFields ?? []).map((path) => `duplicate field "${path}"`),
    ...unknown.map((path) => `unknown field "${path}"`),
  ];
  if (listed.length === 0 || admission.fieldValidation === 'Ignore') return;
  if (admission.fieldValidation === 'Strict') {
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: strict decoding error: ${listed.join(', ')}`,
    );
  }
  admission.warnings.push(...listed);
}

/** What CEL rules see at the root: metadata is reduced to name and generateName. */
function celRoot(object: JsonObject): JsonObject {
  const metadata = objectAt(object, 'metadata') ?? {};
  const visible: JsonObject = {};
  if (metadata.name !== undefined) visible.name = metadata.name;
  if (metadata.generateName !== undefined) visible.generateName = metadata.generateName;
  return { ...object, metadata: visible };
}

/** Metadata is checked by metadataCauses; the schema sees it only through CEL's `self.metadata`. */
const withPlainMetadata = (schema: Schema): Schema => ({
  ...schema,
  properties: { ...schema.properties, metadata: { type: 'object' } },
});

/** What storing does to the shape: Go's `omitempty` on ObjectMeta, and on the whole object of built-in kinds. */
function settleShape(resource: ResourceDef, object: JsonObject): void {
  omitEmptyMetadata(objectAt(object, 'metadata')!);
  if (resource.crdName === undefined) omitEmpty(object, resource.schema);
}

function validate(resource: ResourceDef, object: JsonObject, old: JsonObject | undefined, status = false): void {
  const metadata = objectAt(object, 'metadata')!;
  const causes: StatusCause[] = [
    // Kinds validated by kube-apiserver's core ObjectMeta checks (not CRDs nor custom resources) refuse
    // finalizers without a domain that are not its own.
    ...metadataCauses(
      metadata,
      !resource.strategy.validatesName,
      resource.crdName === undefined && resource.group !== 'apiextensions.k8s.io',
    ),
    ...validateObject(celRoot(object), withPlainMetadata(resource.schema), old && celRoot(old), status),
    ...(resource.strategy.validate?.(object, old) ?? []),
  ];
  if (causes.length > 0) throw invalid(resource, text(metadata.name ?? metadata.generateName ?? ''), causes);
}

/** Normalizing, pruning and defaulting: the decoding half of a write. */
function decode(resource: ResourceDef, object: JsonObject, admission: Admission): void {
  // Built-in kinds only: they decode into Go structs, and no CRD schema declares a MicroTime.
  const undecodable =
    resource.crdName === undefined
      ? (goTypeError(resource.kind, resource.schema, object) ?? decodeMicroTimes(resource.schema, object))
      : undefined;
  if (undecodable) {
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: ${undecodable}`,
    );
  }
  resource.strategy.normalize?.(object);
  pruneUnknown(resource, object, admission);
  applyDefaults(object, resource.schema);
}

/**
 * The body as admission webhooks see it: decoded (unknown fields refused or warned about, as the
 * write asks), pruned and defaulted, not yet validated nor named.
 */
export function decodeForAdmission(resource: ResourceDef, body: unknown, admission: Admission): JsonObject {
  const object = checkBody(resource, body);
  decode(resource, object, admission);
  return object;
}

/** A new object, ready to store: names, server-set metadata, defaults, and validated. */
export function prepareCreate(
  resource: ResourceDef,
  body: JsonObject,
  namespace: string | undefined,
  admission: Admission,
): JsonObject {
  const object = body;
  const metadata = objectAt(object, 'metadata')!;
  if (resource.namespaced) {
    if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.namespace = namespace ?? null;
  } else delete metadata.namespace;
  if (!metadata.name) {
    if (!metadata.generateName) {
      throw invalid(resource, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    metadata.name = `${text(metadata.generateName)}${generatedSuffix()}`;
  }
  if (metadata.resourceVersion) throw storageError('resourceVersion should not be set on objects to be created');
  decode(resource, object, admission);
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const) drop(metadata, field);
  metadata.uid = randomUUID();
  metadata.creationTimestamp = now();
  if (resource.tracksGeneration) metadata.generation = 1;
  else delete metadata.generation;
  if (resource.statusSubresource && !resource.strategy.initialize) delete object.status;
  resource.strategy.initialize?.(object);
  settleShape(resource, object);
  validate(resource, object, undefined);
  if (resource.crdName !== undefined)
    admission.warnings.push(...finalizerWarnings(arrayAt(metadata, 'finalizers') ?? []));
  resource.strategy.derive?.(object, undefined);
  return object;
}

const withoutMetadata = (object: JsonObject, dropStatus: boolean): JsonObject => {
  const rest: JsonObject = { ...object };
  delete rest.metadata;
  if (dropStatus) delete rest.status;
  return rest;
};

/** A `/status` write: the stored object with the body's status (and the managedFields the write computed). */
function statusOnly(body: JsonObject, old: JsonObject): JsonObject {
  const object: JsonObject = { ...clone(old), status: body.status ?? null };
  if (body.status === undefined) delete object.status;
  const managedFields = objectAt(body, 'metadata')?.managedFields;
  if (managedFields !== undefined) objectAt(object, 'metadata')!.managedFields = managedFields;
  return object;
}

/** The fields of metadata that only the server sets, carried over from the stored object. */
const SERVER_METADATA = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
] as const;

/**
 * An update of an existing object (a PUT, or the result of a patch): the main resource keeps the old
 * status and the status subresource keeps everything but the status. Generation moves on changes
 * outside metadata (and outside status when there is a status subresource).
 */
export function prepareUpdate(
  resource: ResourceDef,
  body: JsonObject,
  old: JsonObject,
  subresource: string | undefined,
  admission: Admission,
): JsonObject {
  decode(resource, body, admission);
  const oldMetadata = objectAt(old, 'metadata')!;
  let object: JsonObject;
  if (subresource !== undefined) {
    object = resource.strategy.updateSubresource?.(subresource, body, clone(old)) ?? statusOnly(body, old);
  } else {
    object = body;
    if (resource.statusSubresource) {
      if (old.status === undefined) delete object.status;
      else object.status = clone(old.status);
    }
    resource.strategy.keepOnUpdate?.(object, old);
  }
  const metadata = objectAt(object, 'metadata')!;
  for (const field of SERVER_METADATA) {
    if (oldMetadata[field] === undefined) drop(metadata, field);
    else metadata[field] = oldMetadata[field];
  }
  metadata.namespace = oldMetadata.namespace ?? null;
  if (!resource.namespaced) delete metadata.namespace;
  const changed = !deepEqual(
    withoutMetadata(object, resource.statusSubresource),
    withoutMetadata(old, resource.statusSubresource),
  );
  if (resource.tracksGeneration && changed) {
    metadata.generation = Number(oldMetadata.generation ?? 0) + 1;
  }
  if (oldMetadata.deletionTimestamp) {
    const before = new Set((arrayAt(oldMetadata, 'finalizers') ?? []).map(String));
    const added = (arrayAt(metadata, 'finalizers') ?? []).map(text).filter((finalizer) => !before.has(finalizer));
    if (added.length > 0) {
      // Reported once from 1.37 on (1.33 repeated it in its generic and its kind-specific update checks).
      const cause = {
        reason: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`,
      };
      throw invalid(resource, text(metadata.name), [cause]);
    }
  }
  settleShape(resource, object);
  validate(resource, object, old, subresource === 'status' && resource.statusSubresource);
  if (resource.crdName !== undefined)
    admission.warnings.push(
      ...finalizerWarnings(arrayAt(metadata, 'finalizers') ?? [], arrayAt(oldMetadata, 'finalizers') ?? []),
    );
  resource.strategy.derive?.(object, old);
  return object;
}

/** Whether an update changes nothing a client could see (then the server keeps the old resourceVersion). */
export function isNoOp(next: JsonObject, old: JsonObject): boolean {
  // A change of who manages what is a change (a second applier of the same values), a new time alone is not.
  const strip = (object: JsonObject): Json => {
    const metadata = objectAt(object, 'metadata');
    const managedFields = (arrayAt(metadata, 'managedFields') ?? []).map((entry) =>
      isObject(entry) ? { ...entry, time: null } : entry,
    );
    return { ...object, metadata: { ...metadata, resourceVersion: null, managedFields } };
  };
  return deepEqual(strip(next), strip(old));
}
