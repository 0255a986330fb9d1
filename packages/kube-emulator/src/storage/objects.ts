import { posix } from 'node:path';
import {
  alreadyExists,
  badRequest,
  type ApiError,
  conflict,
  forbidden,
  gone,
  notFound,
  preconditionFailed,
  resourceVersionRequired,
  staleObject,
  storageError,
} from '../api/status.js';
import { namespaces } from '../resources/builtins/core.js';
import { labelsOf } from '../resources/metadata.js';
import { checkBody, isNoOp, now, prepareCreate, prepareUpdate, type Admission } from '../resources/prepare.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import type { FieldMatcher } from '../selectors/fields.js';
import type { LabelMatcher } from '../selectors/labels.js';
import { goJsonSyntaxError, goJsonType } from '../util/go-json.js';
import { arrayAt, clone, isObject, objectAt, stringAt, type JsonObject, text } from '../util/json.js';
import { writeEntries, type FieldManager, type ManagerEntry } from './field-manager.js';
import type { Store } from './store.js';

export type Propagation = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: Propagation;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface WriteOptions extends Admission {
  dryRun: boolean;
  fieldManager: string;
  /** Set by server-side apply: the managedFields it computed, written instead of tracking an update. */
  appliedFields?: ManagerEntry[];
}

export interface ListQuery {
  labels: LabelMatcher;
  fields: FieldMatcher;
  /** Whether a label or field selector was given (then a page says no remainingItemCount). */
  selected?: boolean;
  limit?: number;
  continueToken?: string;
  /** List the objects as they were at this resourceVersion (kube-apiserver's exact reads from etcd). */
  at?: number;
}

export interface ListResult {
  /** The matching objects as stored (tables print from this shape; serve() them for clients). */
  stored: JsonObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

/** Where etcd keeps the object, as kube-apiserver's storage errors name it. */
function storageKeyOf(resource: ResourceDef, namespace: string | undefined, name: string): string {
  const prefix = resource.crdName === undefined ? resource.plural : `${resource.group}/${resource.plural}`;
  return `/registry/${prefix}/${resource.namespaced ? `${namespace}/` : ''}${name}`;
}

/** The namespaces kube-apiserver's NamespaceLifecycle admission never lets go. */
const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/** The finalizers the garbage collector acts on. */
export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

const metadataOf = (object: JsonObject): JsonObject => objectAt(object, 'metadata')!;
const finalizersOf = (object: JsonObject): string[] => (arrayAt(metadataOf(object), 'finalizers') ?? []).map(String);

/** A continue token as kube-apiserver's etcd3 store writes it: base64url of {v, rv, start}. */
/** kube-apiserver's 410 for a continue token past etcd's compaction (its Status carries a token to go on). */
const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const encodeContinue = (key: string, resourceVersion: number): string =>
  Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: key })).toString('base64url');

/** The start key of a continue token, or kube-apiserver's error (storage.DecodeContinue's words). */
function decodeContinue(token: string): { key: string; resourceVersion: number } {
  const invalid = (why: string): ApiError => badRequest(`invalid continue token: continue key is not valid${why}`);
  // base64.RawURLEncoding: no padding, no other alphabet; Go skips line breaks.
  const compact = token.replace(/[\r\n]/g, '');
  const illegal = compact.search(/[^A-Za-z0-9_-]/);
  if (illegal !== -1) throw invalid(`: illegal base64 data at input byte ${illegal}`);
  if (compact.length % 4 === 1) throw invalid(`: illegal base64 data at input byte ${compact.length - 1}`);
  const data = Buffer.from(compact, 'base64url');
  const syntax = goJsonSyntaxError(data);
  if (syntax) throw invalid(`: ${syntax}`);
  const decoded = JSON.parse(data.toString('utf8')) as unknown;
  if (decoded !== null && !isObject(decoded)) {
    throw invalid(`: json: cannot unmarshal ${goJsonType(decoded)} into Go value of type storage.continueToken`);
  }
  const fields = { v: '', rv: 0, start: '' };
  let typeError: string | undefined;
  for (const [key, value] of Object.entries(decoded ?? {})) {
    const field = (['v', 'rv', 'start'] as const).find((name) => name === key.toLowerCase());
    if (field === undefined || value === null) continue;
    if (field === 'rv' ? Number.isSafeInteger(value) : typeof value === 'string') {
      (fields as Record<string, unknown>)[field] = value;
      continue;
    }
    const shown = typeof value === 'number' ? `number ${value}` : goJsonType(value);
    typeError ??= `json: cannot unmarshal ${shown} into Go struct field continueToken.${field} of type ${field === 'rv' ? 'int64' : 'string'}`;
  }
  if (typeError) throw invalid(`: ${typeError}`);
  if (fields.v !== 'meta.k8s.io/v1') throw invalid(`: server does not recognize this encoded version ${fields.v}`);
  if (fields.rv === 0) throw invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (fields.start === '') throw invalid(': encoded start key empty (version meta.k8s.io/v1)');
  // The key must be a clean path (path.Clean): no climbing out of the listed prefix.
  const key = fields.start.startsWith('/') ? fields.start : `/${fields.start}`;
  const normalized = posix.normalize(key);
  const cleaned = normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
  if (cleaned !== key) throw invalid(`: ${fields.start}`);
  return { key: cleaned.slice(1), resourceVersion: fields.rv };
}

/**
 * The objects of every resource: the REST semantics of the apiserver's generic registry on top of
 * the store (create, update, delete with finalizers, lists with selectors and pages).
 */
export class Objects {
  constructor(
    readonly store: Store,
    readonly registry: ResourceRegistry,
    private readonly fieldManager: FieldManager,
  ) {}

  /** A stored object as this resource version serves it. */
  serve(resource: ResourceDef, stored: JsonObject): JsonObject {
    const converted = resource.strategy.fromStorage?.(stored) ?? stored;
    const apiVersion = apiVersionOf(resource);
    return converted.apiVersion === apiVersion ? converted : { ...converted, apiVersion };
  }

  private stored(resource: ResourceDef, namespace: string | undefined, name: string): JsonObject {
    const stored = this.store.get(resource.storageKey, resource.namespaced ? namespace : undefined, name);
    if (!stored) throw notFound(resource, name);
    return stored;
  }

  get(resource: ResourceDef, namespace: string | undefined, name: string): JsonObject {
    return this.serve(resource, this.stored(resource, namespace, name));
  }

  list(resource: ResourceDef, namespace: string | undefined, query: ListQuery): ListResult {
    // A continued list reads its next page at the first page's resourceVersion: the pages are one snapshot.
    // (A token of resourceVersion -1, from a 410, continues at the latest.)
    const continued = query.continueToken ? decodeContinue(query.continueToken) : undefined;
    const at = continued ? (continued.resourceVersion > 0 ? continued.resourceVersion : undefined) : query.at;
    // etcd compacts its history; the emulator keeps a bounded one.
    if (at !== undefined && at < this.store.oldestResumable) {
      if (!continued) throw gone('The resourceVersion for the provided list is too old.');
      const error = gone(INCONSISTENT_CONTINUE);
      error.listMeta = { continue: encodeContinue(continued.key, -1) };
      throw error;
    }
    const version = at ?? this.store.resourceVersion;
    const resourceVersion = String(version);
    const after = continued?.key;
    const stored: JsonObject[] = [];
    let lastKey: string | undefined;
    let remaining = 0;
    for (const [key, object] of this.store.list(resource.storageKey, namespace, after, at)) {
      if (!query.labels(labelsOf(object)) || !query.fields(object)) continue;
      if (query.limit !== undefined && stored.length >= query.limit) {
        remaining++;
        continue;
      }
      stored.push(object);
      lastKey = key;
    }
    if (remaining === 0 || lastKey === undefined) return { stored, resourceVersion };
    // As etcd's count, the remaining items are known only when nothing filters them.
    const filtered = query.selected === true;
    return {
      stored,
      resourceVersion,
      continueToken: encodeContinue(lastKey, version),
      ...(filtered ? {} : { remainingItemCount: remaining }),
    };
  }

  /** NamespaceLifecycle admission: new objects need an existing namespace that is not being deleted. */
  checkNamespace(resource: ResourceDef, namespace: string | undefined, name: string): void {
    if (!resource.namespaced || namespace === undefined) return;
    const found = this.store.get(namespaces.storageKey, undefined, namespace);
    if (!found) throw notFound(namespaces, namespace);
    if (metadataOf(found).deletionTimestamp) {
      const error = forbidden(
        resource,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      error.details.causes = [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ];
      throw error;
    }
  }

  create(resource: ResourceDef, namespace: string | undefined, body: unknown, options: WriteOptions): JsonObject {
    const object = prepareCreate(resource, checkBody(resource, body), namespace, options);
    const name = text(metadataOf(object).name);
    if (this.store.get(resource.storageKey, resource.namespaced ? namespace : undefined, name)) {
      throw alreadyExists(resource, name);
    }
    this.checkNamespace(resource, namespace, name);
    this.trackFields(resource, undefined, object, options, undefined);
    if (options.dryRun) return object;
    return this.serve(resource, this.store.put(resource.storageKey, this.toStorage(resource, object)));
  }

  /**
   * Replaces an object (PUT, and every patch once applied). A resourceVersion in the body must match
   * the stored one (409 Conflict); custom resources require one on PUT, as on the real server.
   */
  update(
    resource: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions & { subresource?: string; requireResourceVersion?: boolean },
  ): JsonObject {
    const stored = this.stored(resource, namespace, name);
    const old = this.serve(resource, stored);
    const candidate = checkBody(resource, body);
    const metadata = metadataOf(candidate);
    if (metadata.name !== undefined && metadata.name !== name) {
      throw badRequest(`the name of the object (${text(metadata.name)}) does not match the name on the URL (${name})`);
    }
    if (
      resource.namespaced &&
      metadata.namespace !== undefined &&
      metadata.namespace !== '' &&
      metadata.namespace !== namespace
    ) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.name = name;
    const resourceVersion = stringAt(metadata, 'resourceVersion');
    if (resourceVersion === undefined || resourceVersion === '') {
      if (options.requireResourceVersion) throw resourceVersionRequired(resource, name);
    } else if (!/^[0-9]+$/.test(resourceVersion)) {
      throw storageError(`strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: invalid syntax`);
    } else if (resourceVersion !== metadataOf(stored).resourceVersion) {
      throw staleObject(resource, name);
    }
    const uid = stringAt(metadata, 'uid');
    if (uid && uid !== metadataOf(stored).uid) {
      throw conflict(
        resource,
        name,
        `StorageError: invalid object, Code: 4, Key: ${storageKeyOf(resource, namespace, name)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${text(metadataOf(stored).uid)}`,
      );
    }
    const next = prepareUpdate(resource, candidate, old, options.subresource, options);
    metadataOf(next).resourceVersion = metadataOf(stored).resourceVersion!;
    this.trackFields(resource, old, next, options, options.subresource);
    if (isNoOp(next, old)) return old;
    if (options.dryRun) return next;
    if (metadataOf(next).deletionTimestamp && !this.held(resource, next)) {
      return this.serve(resource, this.store.remove(resource.storageKey, this.toStorage(resource, next)));
    }
    return this.serve(resource, this.store.put(resource.storageKey, this.toStorage(resource, next)));
  }

  /**
   * Deletes an object: at once when nothing holds it, otherwise it gets a deletionTimestamp and waits
   * for its finalizers (foregroundDeletion and orphan ones are added here and run by the garbage
   * collector). Returns the object, and whether it is gone.
   */
  delete(
    resource: ResourceDef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
  ): { object: JsonObject; removed: boolean } {
    const stored = this.stored(resource, namespace, name);
    const metadata = metadataOf(stored);
    if (resource === namespaces && IMMORTAL_NAMESPACES.includes(name)) {
      throw forbidden(resource, name, 'this namespace may not be deleted');
    }
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== metadata.uid) {
      throw preconditionFailed(
        resource,
        name,
        `the UID in the precondition (${uid}) does not match the UID in record (${text(metadata.uid)}). The object might have been deleted and then recreated`,
      );
    }
    if (resourceVersion && resourceVersion !== metadata.resourceVersion) {
      throw preconditionFailed(
        resource,
        name,
        `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${text(metadata.resourceVersion)}). The object might have been modified`,
      );
    }
    const finalizers = finalizersOf(stored);
    for (const finalizer of resource.strategy.deletionFinalizers ?? [])
      if (!finalizers.includes(finalizer)) finalizers.push(finalizer);
    const policy = options.propagationPolicy ?? 'Background';
    if (policy === 'Foreground' && !finalizers.includes(FOREGROUND)) finalizers.push(FOREGROUND);
    if (policy === 'Orphan' && !finalizers.includes(ORPHAN)) finalizers.push(ORPHAN);
    const held = finalizers.length > 0 || resource.strategy.holdsDeletion?.(stored) === true;
    if (!held) {
      if (options.dryRun) return { object: this.serve(resource, stored), removed: true };
      return { object: this.serve(resource, this.store.remove(resource.storageKey, stored)), removed: true };
    }
    if (metadata.deletionTimestamp && finalizers.length === finalizersOf(stored).length) {
      return { object: this.serve(resource, stored), removed: false };
    }
    const deleting = clone(stored);
    const deletingMetadata = metadataOf(deleting);
    if (finalizers.length > 0) deletingMetadata.finalizers = finalizers;
    else delete deletingMetadata.finalizers;
    if (!deletingMetadata.deletionTimestamp) {
      deletingMetadata.deletionTimestamp = now();
      deletingMetadata.deletionGracePeriodSeconds = 0;
      if (resource.tracksGeneration) deletingMetadata.generation = Number(deletingMetadata.generation ?? 0) + 1;
    }
    resource.strategy.derive?.(deleting, stored);
    if (options.dryRun) return { object: this.serve(resource, deleting), removed: false };
    return { object: this.serve(resource, this.store.put(resource.storageKey, deleting)), removed: false };
  }

  /** Whether a deleted object must stay until finalizers (or its kind's own holds) are gone. */
  private held(resource: ResourceDef, object: JsonObject): boolean {
    return finalizersOf(object).length > 0 || resource.strategy.holdsDeletion?.(object) === true;
  }

  /**
   * Writes a controller's change to a stored object (finalizers dropped, references removed),
   * removing the object when it is being deleted and nothing holds it anymore.
   */
  settle(resource: ResourceDef, next: JsonObject, subresource?: string): void {
    if (metadataOf(next).deletionTimestamp && !this.held(resource, next)) {
      this.store.remove(resource.storageKey, next);
      return;
    }
    // Controllers only take fields away: their managers get nothing, others lose what is gone.
    const old = this.store.get(
      resource.storageKey,
      stringAt(metadataOf(next), 'namespace'),
      text(metadataOf(next).name),
    );
    const tracked = clone(next);
    this.fieldManager.recordUpdate(resource, old, tracked, 'kube-controller-manager', subresource);
    this.store.put(resource.storageKey, tracked);
  }

  private trackFields(
    resource: ResourceDef,
    old: JsonObject | undefined,
    next: JsonObject,
    options: WriteOptions,
    subresource: string | undefined,
  ): void {
    if (options.appliedFields) writeEntries(next, options.appliedFields);
    else this.fieldManager.recordUpdate(resource, old, next, options.fieldManager, subresource);
  }

  private toStorage(resource: ResourceDef, object: JsonObject): JsonObject {
    return resource.strategy.toStorage?.(object) ?? object;
  }
}
