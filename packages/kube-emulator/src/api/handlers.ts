import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionChain } from '../admission/chain.js';
import { admitQuota } from '../admission/quota.js';
import { admitDelete, admitWrite, type AdmittedRequest } from '../admission/write.js';
import type { User } from '../auth/tokens.js';
import { mergeApplied } from '../patch/apply.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { strategicMergePatch } from '../patch/strategic.js';
import { checkBody, type Admission, type FieldValidation } from '../resources/prepare.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import { parseFieldSelector } from '../selectors/fields.js';
import { parseLabelSelector } from '../selectors/labels.js';
import { readEntries, type FieldManager } from '../storage/field-manager.js';
import type { DeleteOptions, ListResult, Objects, Propagation, WriteOptions } from '../storage/objects.js';
import { partialObject, toTable } from '../table/table.js';
import { duplicateFields } from '../util/json-duplicates.js';
import { deepEqual, isObject, objectAt, type Json, type JsonObject, text } from '../util/json.js';
import type { WatchHub } from '../watch/watch.js';
import { decodeDeleteOptions, decodeObjectBody, decodePatchBody, parseBody, readBody, readBytes } from './body.js';
import { decodeKubernetesProtobuf } from './protobuf.js';
import type { Representation } from './negotiate.js';
import { sendJson } from './respond.js';
import {
  type ApiError,
  type StatusCause,
  badRequest,
  invalidOptions,
  methodNotAllowed,
  unsupportedMediaType,
  unsupportedPatchType,
  unsupportedValue,
} from './status.js';

/** The parts of the server the resource handlers work with. */
export interface Api {
  objects: Objects;
  watches: WatchHub;
  fieldManager: FieldManager;
  /** With RBAC: refuses writes of roles and bindings that grant more than their author holds. */
  escalation?: (user: User, resource: ResourceDef, namespace: string | undefined, object: JsonObject) => void;
  /** Admission webhooks and policies, called on every write. */
  admission?: AdmissionChain;
}

/** The request, as admission names it. */
const admitted = (call: Call): AdmittedRequest => ({
  resource: call.resource,
  subresource: call.subresource,
  namespace: call.namespace,
  name: call.name,
  user: call.user,
});

/** The escalation check, on the object a write would store. */
function checkEscalation(api: Api, call: Call, object: unknown): void {
  if (api.escalation && isObject(object)) api.escalation(call.user, call.resource, call.namespace, object);
}

/** One request to a resource, resolved. */
export interface Call {
  request: IncomingMessage;
  response: ServerResponse;
  query: URLSearchParams;
  user: User;
  resource: ResourceDef;
  verb: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  representation: Representation;
}

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** The options kind of a write verb, as its 422s name it. */
const OPTIONS: Record<string, string> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions' };

function fieldValidationOf(call: Call): FieldValidation {
  const value = call.query.get('fieldValidation') || 'Warn';
  if (value !== 'Strict' && value !== 'Warn' && value !== 'Ignore') {
    throw invalidOptions(OPTIONS[call.verb]!, [
      unsupportedValue('fieldValidation', value, ['', 'Ignore', 'Strict', 'Warn']),
    ]);
  }
  return value;
}

/** A Go JSON type name, as `json: cannot unmarshal array into ...` names it. */
const goType = (value: unknown): string =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'boolean' ? 'bool' : typeof value;

const goUnmarshalError = (value: unknown, into: string): string =>
  `json: cannot unmarshal ${goType(value)} into Go value of type ${into}`;

const undecodablePatch = (value: unknown, into: string): ApiError =>
  badRequest(`error decoding patch: ${goUnmarshalError(value, into)}`);

/** The field manager of a write: `?fieldManager=`, else the user agent's first word, as the apiserver does. */
function managerOf(call: Call): string {
  const explicit = call.query.get('fieldManager');
  if (explicit) return explicit;
  const agent = call.request.headers['user-agent'] ?? '';
  return agent.split('/')[0]?.trim() || 'unknown';
}

export function writeOptions(call: Call): WriteOptions {
  const dryRun = call.query.getAll('dryRun');
  if (dryRun.some((value) => value !== 'All')) throw badRequest('dryRun must be "All" or absent');
  return {
    fieldValidation: fieldValidationOf(call),
    warnings: [],
    dryRun: dryRun.length > 0,
    fieldManager: managerOf(call),
  };
}

function respondObject(call: Call, api: Api, code: number, object: JsonObject, warnings: string[] = []): void {
  const { resource, representation } = call;
  let body = object;
  if (representation.kind === 'partial') body = partialObject(object);
  if (representation.kind === 'table') {
    // Columns read the stored shape (core/v1 for both Event APIs).
    const stored = resource.strategy.toStorage?.(object) ?? object;
    const metadata = { resourceVersion: objectAt(object, 'metadata')?.resourceVersion ?? '' };
    body = toTable(resource, [stored], (o) => api.objects.serve(resource, o), representation.includeObject, metadata);
  }
  // kube-apiserver's warning recorder drops repeats (a field warned about by admission and by the write).
  sendJson(call.response, code, body, { warnings: [...new Set(warnings)] });
}

function selectors(call: Call) {
  const labelSelector = call.query.get('labelSelector');
  const fieldSelector = call.query.get('fieldSelector');
  return {
    labels: parseLabelSelector(labelSelector),
    fields: parseFieldSelector(fieldSelector, call.resource.kind, call.resource.crdName !== undefined),
    selected: Boolean(labelSelector || fieldSelector),
  };
}

/**
 * `limit`: none for 0, a negative number or `resourceVersion=0` (kube-apiserver then answers from its
 * watch cache, which does not page).
 */
function limitOf(query: URLSearchParams): number | undefined {
  const limit = Number(query.get('limit') ?? '');
  if (!Number.isInteger(limit) || limit <= 0 || query.get('resourceVersion') === '0') return undefined;
  return limit;
}

/**
 * The resourceVersion a list reads exactly (from etcd, not the watch cache): one with
 * resourceVersionMatch=Exact, or one other than 0 with a limit and no continue token.
 */
function exactVersionOf(query: URLSearchParams): number | undefined {
  const version = query.get('resourceVersion') ?? '';
  if (!/^[1-9][0-9]*$/.test(version)) return undefined;
  const match = query.get('resourceVersionMatch');
  const paged = !match && limitOf(query) !== undefined && !query.get('continue');
  return match === 'Exact' || paged ? Number(version) : undefined;
}

/** A list's items as kube-apiserver writes them: built-in kinds without apiVersion and kind, custom resources with. */
function listItem(resource: ResourceDef, served: JsonObject): JsonObject {
  if (resource.crdName !== undefined) return served;
  const { apiVersion: _apiVersion, kind: _kind, ...item } = served;
  return item;
}

function listMetadata(resource: ResourceDef, result: ListResult): JsonObject {
  const metadata: JsonObject = { resourceVersion: result.resourceVersion };
  // Lists of custom resources are unstructured: their continue is always written, empty on the last page.
  if (result.continueToken || resource.crdName !== undefined) metadata.continue = result.continueToken ?? '';
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  return metadata;
}

const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  field,
  message: `Forbidden: ${why}`,
});

/** ListOptions checks kube-apiserver makes before listing or watching (WatchList on, as from 1.34). */
function checkListOptions(call: Call): void {
  const match = call.query.get('resourceVersionMatch');
  const initialEvents = call.query.has('sendInitialEvents');
  const resumed = call.query.has('continue');
  const causes: StatusCause[] = [];
  if (call.verb === 'watch') {
    if (initialEvents && match !== 'NotOlderThan')
      causes.push(
        forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      );
    if (match) {
      if (!initialEvents)
        causes.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan') causes.push(unsupportedValue('resourceVersionMatch', match, ['NotOlderThan']));
      if (resumed)
        causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      const resourceVersion = call.query.get('resourceVersion');
      if (!resourceVersion)
        causes.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
        );
      if (resumed)
        causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (!['Exact', 'NotOlderThan'].includes(match))
        causes.push(unsupportedValue('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && resourceVersion === '0')
        causes.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
        );
    }
    if (initialEvents) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (causes.length > 0) throw invalidOptions('ListOptions', causes);
}

function list(api: Api, call: Call): void {
  checkListOptions(call);
  const { resource } = call;
  const result = api.objects.list(resource, call.namespace, {
    ...selectors(call),
    limit: limitOf(call.query),
    continueToken: call.query.get('continue') ?? undefined,
    at: exactVersionOf(call.query),
  });
  const metadata = listMetadata(resource, result);
  const serve = (stored: JsonObject): JsonObject => api.objects.serve(resource, stored);
  if (call.representation.kind === 'table') {
    sendJson(call.response, 200, toTable(resource, result.stored, serve, call.representation.includeObject, metadata));
  } else if (call.representation.kind === 'partial') {
    sendJson(call.response, 200, {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      items: result.stored.map(partialObject),
    });
  } else {
    sendJson(call.response, 200, {
      kind: resource.listKind,
      apiVersion: apiVersionOf(resource),
      metadata,
      items: result.stored.map((stored) => listItem(resource, serve(stored))),
    });
  }
}

function watch(api: Api, call: Call): void {
  checkListOptions(call);
  const timeout = call.query.get('timeoutSeconds');
  const { labels, fields } = selectors(call);
  const byName =
    call.name === undefined
      ? fields
      : (object: JsonObject) => objectAt(object, 'metadata')?.name === call.name && fields(object);
  api.watches.open(
    {
      resource: call.resource,
      namespace: call.namespace,
      labels,
      fields: byName,
      resourceVersion: call.query.get('resourceVersion') ?? undefined,
      sendInitialEvents: call.query.has('sendInitialEvents')
        ? call.query.get('sendInitialEvents') === 'true'
        : undefined,
      allowBookmarks: call.query.get('allowWatchBookmarks') === 'true',
      timeoutSeconds: timeout ? Number(timeout) : undefined,
      representation: call.representation,
    },
    call.request,
    call.response,
  );
}

/** A request body; for a create or update, `admission` learns the fields the JSON names twice. */
export async function bodyOf(call: Call, patchType?: string, admission?: Admission): Promise<unknown> {
  const contentType = call.request.headers['content-type'] ?? 'application/json';
  if (contentType.startsWith('application/vnd.kubernetes.protobuf'))
    return decodeKubernetesProtobuf(await readBytes(call.request));
  if (contentType.includes('protobuf') || contentType.includes('cbor'))
    throw unsupportedMediaType('application/json, application/yaml');
  if (contentType.includes('yaml')) return parseBody(await readBody(call.request), contentType);
  const bytes = await readBytes(call.request);
  if (patchType !== undefined) return decodePatchBody(bytes);
  const body = decodeObjectBody(bytes, call.resource.kind);
  if (admission) admission.duplicateFields = duplicateFields(bytes.toString('utf8'));
  return body;
}

async function create(api: Api, call: Call): Promise<void> {
  const options = writeOptions(call);
  const body = await admitWrite(
    api.admission,
    { ...admitted(call), verb: 'create', old: undefined },
    await bodyOf(call, undefined, options),
    options,
    (object) => api.objects.create(call.resource, call.namespace, object, { ...options, dryRun: true, warnings: [] }),
  );
  checkEscalation(api, call, body);
  if (isObject(body)) admitQuota(api.objects, call.resource, call.namespace, body, options.dryRun);
  const created = api.objects.create(call.resource, call.namespace, body, options);
  respondObject(call, api, 201, created, options.warnings);
}

async function update(api: Api, call: Call): Promise<void> {
  const options = writeOptions(call);
  const write = {
    ...options,
    ...(call.subresource ? { subresource: call.subresource } : {}),
    requireResourceVersion: call.resource.crdName !== undefined,
  };
  const body = await admitWrite(
    api.admission,
    { ...admitted(call), verb: 'update', old: api.admission?.active ? current(api, call) : undefined },
    await bodyOf(call, undefined, options),
    options,
    (object) =>
      api.objects.update(call.resource, call.namespace, call.name!, object, { ...write, dryRun: true, warnings: [] }),
  );
  checkEscalation(api, call, body);
  const updated = api.objects.update(call.resource, call.namespace, call.name!, body, write);
  respondObject(call, api, 200, updated, options.warnings);
}

/** The stored object a write replaces, as clients see it. */
const current = (api: Api, call: Call): JsonObject => api.objects.get(call.resource, call.namespace, call.name!);

function patchedObject(call: Call, current: JsonObject, patchType: string, patch: unknown): Json {
  switch (patchType) {
    case 'application/json-patch+json':
      // Go decodes null as no operations, and a strategic merge patch of null as no change.
      if (patch === null) return applyJsonPatch(current, []);
      if (!Array.isArray(patch)) throw undecodablePatch(patch, '[]handlers.jsonPatchOp');
      return applyJsonPatch(current, patch as Json[]);
    case 'application/merge-patch+json':
      // json-patch's MergePatch refuses a null document before decoding it.
      if (patch === null) throw badRequest('Invalid JSON Patch');
      if (!isObject(patch)) throw undecodablePatch(patch, 'map[string]interface {}');
      return applyMergePatch(current, patch);
    default:
      // The strategic merge patch's decode error is Go's alone, without 'error decoding patch'.
      if (patch === null) return strategicMergePatch(current, {}, call.resource.schema);
      if (!isObject(patch)) throw badRequest(goUnmarshalError(patch, 'map[string]interface {}'));
      return strategicMergePatch(current, patch, call.resource.schema);
  }
}

async function patch(api: Api, call: Call): Promise<void> {
  const patchType = (call.request.headers['content-type'] ?? '').split(';')[0]!.trim();
  const accepted = PATCH_TYPES.filter((type) => call.resource.strategicMergePatch || !type.includes('strategic'));
  if (!accepted.includes(patchType)) {
    // A known patch type the resource does not take (strategic merge on a custom resource) lists the others.
    throw PATCH_TYPES.includes(patchType) ? unsupportedMediaType(accepted.join(', ')) : unsupportedPatchType();
  }
  const options = writeOptions(call);
  const body = await bodyOf(call, patchType);
  const { resource, namespace, name } = call;
  const write = { ...options, ...(call.subresource ? { subresource: call.subresource } : {}) };
  if (patchType === 'application/apply-patch+yaml') return apply(api, call, body, write);
  const old = api.objects.get(resource, namespace, name!);
  const patched = await admitWrite(
    api.admission,
    { ...admitted(call), verb: 'patch', old },
    patchedObject(call, old, patchType, body),
    options,
    (object) => api.objects.update(resource, namespace, name!, object, { ...write, dryRun: true, warnings: [] }),
  );
  checkEscalation(api, call, patched);
  const updated = api.objects.update(resource, namespace, name!, patched, write);
  respondObject(call, api, 200, updated, options.warnings);
}

/** Whether two versions of an object hold the same values (who manages them aside). */
function sameValues(a: JsonObject, b: JsonObject): boolean {
  const values = (object: JsonObject): JsonObject => ({
    ...object,
    metadata: { ...objectAt(object, 'metadata'), managedFields: null },
  });
  return deepEqual(values(a), values(b));
}

/** Server-side apply: creates the object when missing, else merges the configuration into it. */
async function apply(
  api: Api,
  call: Call,
  body: unknown,
  options: WriteOptions & { subresource?: string },
): Promise<void> {
  if (!call.query.get('fieldManager')) {
    throw invalidOptions('PatchOptions', [
      { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
    ]);
  }
  const configured = isObject(body) ? body : {};
  if (!configured.apiVersion || !configured.kind) {
    const apiVersion = text(configured.apiVersion);
    throw badRequest(
      `invalid object type: ${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${text(configured.kind)}`,
    );
  }
  const { resource, namespace, name } = call;
  const config = checkBody(resource, body);
  const configName = objectAt(config, 'metadata')?.name;
  if (configName !== undefined && configName !== name) {
    throw badRequest(`the name of the object (${text(configName)}) does not match the name on the URL (${name!})`);
  }
  const live = api.objects.store.get(resource.storageKey, resource.namespaced ? namespace : undefined, name!);
  const served = live && api.objects.serve(resource, live);
  const entries = readEntries(served);
  const force = call.query.get('force') === 'true';
  const ownership = api.fieldManager.recordApply(
    resource,
    served,
    config,
    options.fieldManager,
    force,
    entries,
    call.subresource,
  );
  const applied = { ...options, appliedFields: entries };
  const named = (object: JsonObject): JsonObject => ({
    ...object,
    metadata: { ...objectAt(object, 'metadata'), name: name! },
  });
  const applying = mergeApplied(served, config, resource.schema, ownership.dropped);
  if (served && sameValues(served, applying)) ownership.changedNothing();
  const merged = (await admitWrite(
    api.admission,
    { ...admitted(call), verb: 'patch', old: served },
    applying,
    options,
    (object) =>
      served
        ? api.objects.update(resource, namespace, name!, object, { ...applied, dryRun: true, warnings: [] })
        : api.objects.create(resource, namespace, named(object), { ...applied, dryRun: true, warnings: [] }),
  )) as JsonObject;
  checkEscalation(api, call, merged);
  if (!served) {
    admitQuota(api.objects, resource, namespace, named(merged), options.dryRun);
    const created = api.objects.create(resource, namespace, named(merged), applied);
    respondObject(call, api, 201, created, options.warnings);
    return;
  }
  const updated = api.objects.update(resource, namespace, name!, merged, applied);
  respondObject(call, api, 200, updated, options.warnings);
}

async function deleteOptionsOf(call: Call): Promise<DeleteOptions> {
  const decoded = decodeDeleteOptions(await readBytes(call.request));
  const body: JsonObject = isObject(decoded) ? decoded : {};
  const policy =
    call.query.get('propagationPolicy') ??
    (typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined) ??
    (body.orphanDependents === true ? 'Orphan' : undefined);
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw invalidOptions('DeleteOptions', [
      unsupportedValue('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']),
    ]);
  }
  const explicitPolicy = call.query.get('propagationPolicy') ?? body.propagationPolicy;
  if (typeof body.orphanDependents === 'boolean' && typeof explicitPolicy === 'string') {
    throw invalidOptions('DeleteOptions', [
      {
        reason: 'FieldValueInvalid',
        field: 'propagationPolicy',
        message: `Invalid value: ${JSON.stringify(explicitPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
      },
    ]);
  }
  const preconditions = objectAt(body, 'preconditions');
  const dryRun = call.query.getAll('dryRun').length > 0 || (Array.isArray(body.dryRun) && body.dryRun.length > 0);
  return {
    ...(policy ? { propagationPolicy: policy as Propagation } : {}),
    ...(preconditions ? { preconditions: preconditions } : {}),
    dryRun,
  };
}

/** The Status a delete answers with when the kind does not return the deleted object. */
const deletedStatus = (resource: ResourceDef, object: JsonObject): JsonObject => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  details: {
    name: objectAt(object, 'metadata')?.name ?? '',
    ...(resource.group ? { group: resource.group } : {}),
    kind: resource.plural,
    uid: objectAt(object, 'metadata')?.uid ?? '',
  },
});

/**
 * Admission of one delete, before it is done. The deletes of a deletecollection are admitted
 * without a name, as kube-apiserver admits each item of one (policies and webhooks see an empty name).
 */
async function admitRemoval(api: Api, call: Call, old: JsonObject, options: DeleteOptions, warnings: string[]) {
  const { dryRun = false, ...sent } = options;
  const metadata = objectAt(old, 'metadata');
  const namespace = call.namespace ?? (metadata?.namespace as string | undefined);
  const name = call.verb === 'deletecollection' ? '' : text(metadata?.name);
  await admitDelete(api.admission, { ...admitted(call), namespace, name }, old, sent, dryRun, warnings);
}

async function remove(api: Api, call: Call): Promise<void> {
  const options = await deleteOptionsOf(call);
  const warnings: string[] = [];
  if (api.admission?.active) await admitRemoval(api, call, current(api, call), options, warnings);
  const { object, removed } = api.objects.delete(call.resource, call.namespace, call.name!, options);
  const returnsObject = !removed || call.resource.returnsDeletedObject;
  sendJson(call.response, 200, returnsObject ? object : deletedStatus(call.resource, object), { warnings });
}

async function removeCollection(api: Api, call: Call): Promise<void> {
  const options = await deleteOptionsOf(call);
  const listed = api.objects.list(call.resource, call.namespace, selectors(call));
  const warnings: string[] = [];
  const items: JsonObject[] = [];
  for (const object of listed.stored) {
    const metadata = objectAt(object, 'metadata')!;
    const served = api.objects.serve(call.resource, object);
    if (api.admission?.active) await admitRemoval(api, call, served, options, warnings);
    api.objects.delete(call.resource, metadata.namespace as string | undefined, text(metadata.name), options);
    // As kube-apiserver, the objects as they were listed, before the deletion.
    items.push(listItem(call.resource, served));
  }
  sendJson(
    call.response,
    200,
    {
      kind: call.resource.listKind,
      apiVersion: apiVersionOf(call.resource),
      metadata: listMetadata(call.resource, listed),
      items,
    },
    { warnings },
  );
}

/** Serves one resource request by verb. */
export async function handleResource(api: Api, call: Call): Promise<void> {
  switch (call.verb) {
    case 'get':
      respondObject(call, api, 200, api.objects.get(call.resource, call.namespace, call.name!));
      return;
    case 'list':
      list(api, call);
      return;
    case 'watch':
      watch(api, call);
      return;
    case 'create':
      return create(api, call);
    case 'update':
      return update(api, call);
    case 'patch':
      return patch(api, call);
    case 'delete':
      return remove(api, call);
    case 'deletecollection':
      return removeCollection(api, call);
    default:
      throw methodNotAllowed();
  }
}
