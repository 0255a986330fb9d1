import { isDeepStrictEqual } from 'node:util';
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import type { AWSCredentialsRequest } from '@keymaster/api';
import { dataDigest, EXPIRES_ANNOTATION, ownedBy, REQUEST_LABEL } from './owned-secret.js';

/**
 * What the controller keeps of a request's Secret: what it reads to decide whether to write (owner,
 * our label and annotation, the version to write over) and a digest of the data, never the data.
 * A Secret holds up to 1 MiB a tenant chooses; this holds a few hundred bytes.
 */
export interface KeptSecret {
  apiVersion?: string;
  kind?: string;
  type?: string;
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    labels: { [REQUEST_LABEL]: string };
    annotations?: { [EXPIRES_ANNOTATION]: string };
    ownerReferences?: V1OwnerReference[];
  };
  /** `dataDigest` of the Secret's data (base64 values, as the API server sends them). */
  dataDigest: string;
}

/** A request of the cache, by namespace and name. */
export type RequestLookup = (namespace: string, name: string) => AWSCredentialsRequest | undefined;

/**
 * The Secret informers' transform: a Secret that an existing request controls (the one its secretRef
 * names, owned by it) is kept without its data; any other, labelled by whoever may write Secrets in the
 * namespace, is not kept at all.
 */
export const keptSecret =
  (requestOf: RequestLookup) =>
  (secret: V1Secret): KeptSecret | undefined => {
    const {
      name = '',
      namespace = '',
      uid,
      resourceVersion,
      labels,
      annotations,
      ownerReferences,
    } = secret.metadata ?? {};
    const owner = labels?.[REQUEST_LABEL];
    const request = owner === undefined ? undefined : requestOf(namespace, owner);
    if (!request || request.spec.secretRef.name !== name || !ownedBy(secret, request)) return undefined;
    const expires = annotations?.[EXPIRES_ANNOTATION];
    return {
      ...(secret.apiVersion ? { apiVersion: secret.apiVersion } : {}),
      ...(secret.kind ? { kind: secret.kind } : {}),
      ...(secret.type ? { type: secret.type } : {}),
      metadata: {
        name,
        namespace,
        ...(uid ? { uid } : {}),
        ...(resourceVersion ? { resourceVersion } : {}),
        labels: { [REQUEST_LABEL]: owner! },
        ...(expires !== undefined ? { annotations: { [EXPIRES_ANNOTATION]: expires } } : {}),
        ownerReferences: ownerReferences?.map(plainOwner),
      },
      dataDigest: dataDigest(secret.data ?? {}),
    };
  };

/**
 * An owner reference as plain JSON: a listed Secret's are client-node's model instances, a watched
 * one's plain objects, and only plain ones compare equal to the desired Secret's.
 */
const plainOwner = ({ apiVersion, kind, name, uid, controller, blockOwnerDeletion }: V1OwnerReference) => ({
  apiVersion,
  kind,
  name,
  uid,
  ...(controller !== undefined ? { controller } : {}),
  ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}),
});

/**
 * Whether the live Secret differs from the desired one in what the request decides (data, our label
 * and annotation, the owner): a hand edit of any of these is set back. Other labels and annotations
 * people add are left alone (and not kept).
 */
export function secretDiffers(live: KeptSecret, desired: V1Secret): boolean {
  const { labels = {}, annotations = {}, ownerReferences } = desired.metadata ?? {};
  return (
    live.dataDigest !== dataDigest(desired.data ?? {}) ||
    live.metadata.labels[REQUEST_LABEL] !== labels[REQUEST_LABEL] ||
    live.metadata.annotations?.[EXPIRES_ANNOTATION] !== annotations[EXPIRES_ANNOTATION] ||
    !isDeepStrictEqual(live.metadata.ownerReferences, ownerReferences)
  );
}
