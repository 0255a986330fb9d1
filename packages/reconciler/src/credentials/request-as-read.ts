import type { AWSCredentialsRequest } from '@keymaster/api';
import { tenantObjectAsRead } from '../kube/cache-transforms.js';

/**
 * No valid request's spec is larger: its session policy is at most 2,048 characters and it names at
 * most 10 policy ARNs. The API server accepts specs of over 1 MiB (50 statements of 100 actions and
 * 100 resources); the cache keeps none of that.
 */
export const MAX_SPEC_BYTES = 64 * 1024;
/**
 * Set by the cache, in its own copy only, on a request whose spec it did not keep: the spec's size in
 * bytes. Tenants cannot set it: the cache keeps no annotation of a request.
 */
export const SPEC_NOT_KEPT = 'keymaster.dev/spec-not-kept';

const asRead = tenantObjectAsRead([]);

/** A request as the cache keeps it: no labels or annotations, and no spec larger than a valid one. */
export function requestAsRead(request: AWSCredentialsRequest): AWSCredentialsRequest {
  const read = asRead(request);
  const bytes = Buffer.byteLength(JSON.stringify(read.spec));
  if (bytes <= MAX_SPEC_BYTES) return read;
  const { identityRef, secretRef, mode } = read.spec;
  return {
    ...read,
    metadata: { ...read.metadata, annotations: { [SPEC_NOT_KEPT]: String(bytes) } },
    spec: { identityRef, secretRef, ...(mode ? { mode } : {}) },
  };
}
