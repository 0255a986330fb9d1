import { toCel } from '../../schema/cel.js';
import { objectAt, type Json, type JsonObject } from '../../util/json.js';
import type { RbacAuthorizer } from '../../auth/rbac.js';
import { namespaces } from '../../resources/builtins/core.js';
import { OBJECT_META } from '../../resources/metadata.js';
import type { Store } from '../../storage/store.js';
import type { AdmissionAttributes } from '../request.js';
import { authorizerValue } from './authorizer.js';
import type { Inputs } from './evaluate.js';

/**
 * The values admission expressions see, converted as kube-apiserver converts its Go structs for CEL
 * (to unstructured JSON: fields tagged omitempty are absent when empty, so `request.namespace` of a
 * cluster-scoped request is `no such key`).
 */

const present = (entries: [string, Json | undefined][]): JsonObject =>
  Object.fromEntries(entries.filter(([, value]) => value !== undefined && value !== '')) as JsonObject;

/** admissionv1.AdmissionRequest as CreateAdmissionRequest fills it (no uid, no objects: those are variables). */
function requestValue(attributes: AdmissionAttributes): unknown {
  const { resource, user } = attributes;
  const kind = { group: resource.group, version: resource.version, kind: resource.kind };
  const gvr = { group: resource.group, version: resource.version, resource: resource.plural };
  const extra = user.extra && Object.keys(user.extra).length > 0 ? (user.extra as JsonObject) : undefined;
  const request: JsonObject = {
    uid: '',
    kind,
    resource: gvr,
    requestKind: kind,
    requestResource: gvr,
    operation: attributes.operation,
    userInfo: present([
      ['username', user.name],
      ['uid', user.uid],
      ['groups', user.groups.length > 0 ? user.groups : undefined],
      ['extra', extra],
    ]),
    object: null,
    oldObject: null,
    dryRun: attributes.dryRun,
    options: attributes.options,
    ...present([
      ['subResource', attributes.subresource],
      ['requestSubResource', attributes.subresource],
      ['name', attributes.name],
      ['namespace', attributes.namespace],
    ]),
  };
  return toCel(request, undefined);
}

/** What CreateNamespaceObject leaves out of a Namespace's metadata. */
const NOT_IN_NAMESPACE_OBJECT = ['selfLink', 'ownerReferences', 'managedFields'];

/** CreateNamespaceObject: the stored Namespace's metadata (not its managedFields nor owners), spec and status. */
function namespaceValue(namespace: JsonObject | undefined): unknown {
  if (!namespace) return null;
  const metadata = objectAt(namespace, 'metadata') ?? {};
  const kept = [...OBJECT_META].filter((key) => !NOT_IN_NAMESPACE_OBJECT.includes(key) && metadata[key] !== undefined);
  const value: JsonObject = {
    metadata: Object.fromEntries(kept.map((key) => [key, metadata[key]!])),
    spec: objectAt(namespace, 'spec') ?? {},
    status: objectAt(namespace, 'status') ?? {},
  };
  return toCel(value, undefined);
}

/** The CEL inputs of a request; namespaced requests see their Namespace, Namespaces themselves none. */
export function inputsOf(attributes: AdmissionAttributes, store: Store, rbac: RbacAuthorizer | undefined): Inputs {
  const { resource } = attributes;
  const namespaced = resource !== namespaces && resource.namespaced && attributes.namespace;
  const namespace = namespaced ? store.get(namespaces.storageKey, undefined, attributes.namespace!) : undefined;
  return {
    object: toCel(attributes.object ?? null, undefined),
    oldObject: toCel(attributes.oldObject ?? null, undefined),
    request: requestValue(attributes),
    namespaceObject: namespaceValue(namespace),
    authorizer: authorizerValue(attributes, rbac),
  };
}
