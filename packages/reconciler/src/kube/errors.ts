import { ApiException } from '@kubernetes/client-node';

/** Whether the API server refused a write because the object changed meanwhile (409 Conflict). */
export const isConflict = (error: unknown): boolean => error instanceof ApiException && error.code === 409;

/** Whether the object written to is gone (404): its deletion brings the reconcile that forgets it. */
export const isNotFound = (error: unknown): boolean => error instanceof ApiException && error.code === 404;

/**
 * Whether RBAC refused the call (403): an ApiException from a request, or the status client-node's
 * watch gives the error it ends with.
 */
export const isForbidden = (error: unknown): boolean =>
  (error instanceof ApiException && error.code === 403) ||
  (typeof error === 'object' && error !== null && (error as { statusCode?: unknown }).statusCode === 403);

/** Errors that only mean the cache was behind: retried at once, counted as requeues, never as errors. */
export const isStaleRead = (error: unknown): boolean => isConflict(error) || isNotFound(error);

/** The API server's own message from a Status body, instead of client-node's wrapper text. */
export function describeKubeError(error: unknown): unknown {
  if (!(error instanceof ApiException)) return error;
  try {
    const status = JSON.parse(error.body as string) as { message?: string; reason?: string };
    return { code: error.code, reason: status.reason, message: status.message };
  } catch {
    return { code: error.code, message: String(error.body) };
  }
}
