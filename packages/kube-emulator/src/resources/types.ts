import { createHash } from 'node:crypto';
import type { StatusCause } from '../api/status.js';
import type { Schema } from '../schema/types.js';
import type { Json, JsonObject } from '../util/json.js';

/** A column of `kubectl get`'s Table, after the Name column every resource has. */
export interface Column {
  name: string;
  type: string;
  format?: string;
  description: string;
  /** 0: shown by default; 1: shown with `-o wide`. */
  priority: number;
  cell(object: JsonObject): Json;
}

/** Kind-specific behaviour of a built-in resource, the parts a generic REST store does not cover. */
export interface Strategy {
  /** Normalizes an incoming object before validation (e.g. Secret stringData folded into data). */
  normalize?(object: JsonObject): void;
  /** Fields the server sets on create (e.g. a Namespace's status.phase). */
  initialize?(object: JsonObject): void;
  /** What an update of the main resource keeps of the stored object besides its status (a Namespace's spec.finalizers). */
  keepOnUpdate?(object: JsonObject, old: JsonObject): void;
  /**
   * An update of a subresource: what it takes from the body and what from the stored object. By
   * default a `/status` write changes the status alone (and its managedFields).
   */
  updateSubresource?(subresource: string, body: JsonObject, old: JsonObject): JsonObject;
  /** Fields the server keeps up to date on every write (e.g. a CRD's status conditions). */
  derive?(object: JsonObject, old: JsonObject | undefined): void;
  /** Finalizers the first delete adds (a CRD's cleanup finalizer: its objects go first). */
  deletionFinalizers?: string[];
  /** Whether something besides metadata.finalizers holds a deleted object (a Namespace's spec.finalizers). */
  holdsDeletion?(object: JsonObject): boolean;
  /** Checks beyond the schema, as the built-in validation of the kind does. */
  validate?(object: JsonObject, old: JsonObject | undefined): StatusCause[];
  /** Whether `validate` checks metadata.name itself (a Namespace's is a DNS label, RBAC's a path segment); otherwise it must be a DNS subdomain. */
  validatesName?: boolean;
  /** From this version's shape to the stored shape, and back (events.k8s.io/v1 Event over core/v1 Event). */
  toStorage?(object: JsonObject): JsonObject;
  fromStorage?(object: JsonObject): JsonObject;
}

/** One served resource: a group/version/plural with its kind, scope, schema and printing. */
export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Whether a `/status` subresource exists (then the main resource ignores status, and vice versa). */
  statusSubresource: boolean;
  /** Whether metadata.generation is kept (custom resources and CRDs; most built-ins have none). */
  tracksGeneration: boolean;
  /** Objects of every version of a resource share one collection; this names it. */
  storageKey: string;
  /** The structural schema of the whole object (metadata is handled separately). */
  schema: Schema;
  columns: Column[];
  strategy: Strategy;
  /** The CRD that serves this resource, absent for built-ins. */
  crdName?: string;
  /** Custom resources accept no strategic merge patch. */
  strategicMergePatch: boolean;
  /** Whether a delete that removes the object answers with it (Namespace, Service, ServiceAccount), not a Status. */
  returnsDeletedObject: boolean;
  /** The verbs served, when not all of VERBS (reviews are only created, namespaces not deleted as a collection). */
  verbs?: string[];
  /** Discovery's storageVersionHash: of the group, version and kind objects are stored as (none for reviews). */
  storageVersionHash?: string;
}

/** What kube-apiserver publishes as a resource's storageVersionHash: 8 bytes of SHA-256 of `group/version/kind`. */
export const storageVersionHash = (group: string, version: string, kind: string): string =>
  createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');

export const apiVersionOf = (resource: { group: string; version: string }): string =>
  resource.group ? `${resource.group}/${resource.version}` : resource.version;

export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
