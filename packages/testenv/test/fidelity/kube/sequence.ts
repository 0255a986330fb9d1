/** The corpus's vocabulary: a sequence is a list of HTTP requests sent in order to both API servers. */

/** Who sends a request: the admin (system:masters), the tenant (only what the sequence's Roles grant), no token. */
export type Who = 'admin' | 'tenant' | 'anonymous';

/** The corpus's areas, in the order the report lists them. */
export const AREAS = [
  'crud',
  'patch',
  'apply',
  'status',
  'conflict',
  'list',
  'watch',
  'deletion',
  'namespace',
  'validation',
  'admission',
  'rbac',
  'discovery',
] as const;
export type Area = (typeof AREAS)[number];

/** Content types by their short names (`type: 'merge'`); a full media type is sent as given. */
export const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  merge: 'application/merge-patch+json',
  'json-patch': 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface Step {
  /** `METHOD path[?query]`. `{ns}` is the sequence's namespace, `{{N.a.b}}` a field of step N's answer body. */
  request: string;
  as?: Who;
  /** Extra request headers (`Impersonate-User`, ...). */
  headers?: Record<string, string>;
  /** An object or array is sent as JSON (or YAML text for `type: 'apply'` when given a string). */
  body?: unknown;
  /** A key of CONTENT_TYPES or a media type; defaults to JSON when there is a body. */
  type?: string;
  accept?: string;
  /** A watch: read at most this many events (the request's timeoutSeconds ends it sooner). */
  watch?: number;
  /**
   * Repeat the request (up to 30 s) until it answers this status, or until the answer passes this
   * check: waits for a controller's work (kube-controller-manager acts a moment later than the
   * emulator's controllers, which act before the request that triggered them returns).
   */
  until?: number | ((answer: { status: number; body: unknown; warnings: string[] }) => boolean);
  /** Compare only this part of the answer body (for documents far larger than what a client reads). */
  pick?: (body: unknown) => unknown;
}

export interface Sequence {
  /** Unique and stable: it names the sequence in test titles, in the report and in the explained differences. */
  name: string;
  area: Area;
  steps: Step[];
  /** Cluster-scoped objects to delete afterwards (not compared), so that later sequences start clean. */
  cleanup?: string[];
}

/** Step N's body field at `path` (dot-separated; numbers index arrays). */
function fieldAt(bodies: readonly unknown[], reference: string): unknown {
  const [index, ...path] = reference.split('.');
  let value: unknown = bodies[Number(index)];
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  if (value === undefined) throw new Error(`{{${reference}}}: step ${index}'s answer has no such field`);
  return value;
}

/**
 * Fills a step's templates for one server: `{ns}` and `{{N.path}}` from that server's own earlier
 * answers (each server has its own uids and resourceVersions). A string that is only a reference
 * takes the referenced value's type.
 */
export function fill<T>(value: T, namespace: string, bodies: readonly unknown[]): T {
  if (typeof value === 'string') {
    const whole = /^\{\{([^}]+)\}\}$/.exec(value);
    if (whole) return fieldAt(bodies, whole[1]!) as T;
    return value
      .replaceAll('{ns}', namespace)
      .replace(/\{\{([^}]+)\}\}/g, (_, reference: string) => String(fieldAt(bodies, reference))) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => fill(item, namespace, bodies)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Function)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [fill(key, namespace, bodies), fill(item, namespace, bodies)]),
    ) as T;
  }
  return value;
}
