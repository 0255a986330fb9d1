import { randomUUID } from 'node:crypto';
import type { User } from '../auth/tokens.js';
import { namespaces } from '../resources/builtins/core.js';
import type { ResourceDef } from '../resources/types.js';
import { objectAt, text, type JsonObject } from '../util/json.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** One write as admission sees it (kube-apiserver's admission.Attributes). */
export interface AdmissionAttributes {
  operation: Operation;
  resource: ResourceDef;
  subresource: string | undefined;
  /** The request's namespace; for Namespace objects, their own name (as kube-apiserver sets it). */
  namespace: string | undefined;
  name: string;
  /** The object written (absent on DELETE). */
  object: JsonObject | undefined;
  /** The stored object (UPDATE and DELETE). */
  oldObject: JsonObject | undefined;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions, as sent in the review. */
  options: JsonObject;
  user: User;
  dryRun: boolean;
}

/** The attributes of a write to a resource: the name from the URL, else the object's. */
export function admissionAttributes(
  input: Omit<AdmissionAttributes, 'name' | 'namespace'> & { namespace: string | undefined; name: string | undefined },
): AdmissionAttributes {
  const name = input.name ?? text(objectAt(input.object ?? input.oldObject ?? {}, 'metadata')?.name ?? '');
  const namespace = input.resource === namespaces ? name : input.namespace;
  return { ...input, name, namespace };
}

/** The AdmissionReview v1 a webhook is sent. */
export function admissionReview(attributes: AdmissionAttributes, object: JsonObject | undefined): JsonObject {
  const { resource, user } = attributes;
  const kind = { group: resource.group, version: resource.version, kind: resource.kind };
  const gvr = { group: resource.group, version: resource.version, resource: resource.plural };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      resource: gvr,
      ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
      requestKind: kind,
      requestResource: gvr,
      ...(attributes.subresource ? { requestSubResource: attributes.subresource } : {}),
      name: attributes.name,
      ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
      operation: attributes.operation,
      userInfo: {
        username: user.name,
        ...(user.uid ? { uid: user.uid } : {}),
        groups: user.groups,
        ...(user.extra ? { extra: user.extra } : {}),
      },
      object: object ?? null,
      oldObject: attributes.oldObject ?? null,
      dryRun: attributes.dryRun,
      options: attributes.options,
    },
  };
}
