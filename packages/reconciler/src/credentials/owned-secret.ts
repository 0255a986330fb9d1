import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import type { AWSCredentialsRequest } from '@keymaster/api';
import { createHash } from 'node:crypto';

/**
 * The label on every Secret a request writes (its value: the request's name). The controller lists
 * and watches Secrets with this label only, and keeps only those existing requests control, without
 * their data (kept-secret.ts).
 */
export const REQUEST_LABEL = 'keymaster.dev/credentials-request';
/** When the credentials in the Secret expire (RFC 3339), for people and tools that read the Secret. */
export const EXPIRES_ANNOTATION = 'keymaster.dev/expires';

/**
 * Whether a Secret is the request's own: an Opaque Secret that names the request (this UID) as its
 * controlling owner. Anyone who may create Secrets in the namespace could make one like it, and gain
 * nothing: it receives what the request's own Secret would.
 */
export const ownedBy = (
  secret: { type?: string; metadata?: { ownerReferences?: V1OwnerReference[] } },
  request: AWSCredentialsRequest,
): boolean =>
  (secret.type ?? 'Opaque') === 'Opaque' &&
  (secret.metadata?.ownerReferences ?? []).some(
    (owner) => owner.uid === request.metadata.uid && owner.kind === request.kind && owner.controller === true,
  );

const encode = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]));

/**
 * The Secret as the request wants it: its data (empty when revoked), the label, the expiry annotation,
 * and the request as controlling owner (the garbage collector deletes it with the request).
 */
export function desiredSecret(
  request: AWSCredentialsRequest,
  data: Record<string, string>,
  expires: Date | undefined,
): V1Secret {
  const { name = '', namespace = '', uid = '' } = request.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: request.spec.secretRef.name,
      namespace,
      labels: { [REQUEST_LABEL]: name },
      ...(expires ? { annotations: { [EXPIRES_ANNOTATION]: expires.toISOString() } } : {}),
      ownerReferences: [
        { apiVersion: request.apiVersion, kind: request.kind, name, uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    data: encode(data),
  };
}

/** The live Secret set back to the desired one, keeping what others added (labels, annotations) and its resourceVersion. */
export function restoredSecret(live: V1Secret, desired: V1Secret): V1Secret {
  const annotations = Object.fromEntries(
    Object.entries(live.metadata?.annotations ?? {}).filter(([key]) => key !== EXPIRES_ANNOTATION),
  );
  const metadata = desired.metadata ?? {};
  return {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    type: desired.type,
    data: desired.data,
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      ownerReferences: metadata.ownerReferences,
      labels: Object.assign({}, live.metadata?.labels, metadata.labels),
      annotations: Object.assign(annotations, metadata.annotations),
      ...(live.metadata?.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}),
    },
  };
}

/** A digest of a Secret's data, whatever the order of its keys: what was written, without keeping it. */
export const dataDigest = (data: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
    .digest('hex');
