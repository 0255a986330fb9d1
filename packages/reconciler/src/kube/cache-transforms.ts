import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import { ReadyReason } from '@keymaster/api';

/** kubectl apply's copy of the whole object, as large as the object (and a Secret's copy holds its keys). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Metadata = { managedFields?: unknown; annotations?: Record<string, string> };

/**
 * What the informer caches keep of each object: the controller reads neither managedFields (field
 * ownership, often larger than the object) nor kubectl's last-applied copy. Nothing the controller
 * writes back needs them: status goes through the status subresource, which takes only status, and
 * an update that omits managedFields leaves the server's as they were (docs/reconciler.md#memory).
 * An annotation map left empty is dropped, so that old and new versions compare alike.
 */
export function withoutUnread<T extends { metadata?: object }>(object: T): T {
  if (!object.metadata) return object;
  const { managedFields: _managed, annotations, ...metadata } = object.metadata as Metadata;
  const { [LAST_APPLIED]: _lastApplied, ...kept } = annotations ?? {};
  return { ...object, metadata: { ...metadata, ...(Object.keys(kept).length > 0 ? { annotations: kept } : {}) } };
}

/**
 * What a cached AWSCluster keeps of its labels, counted in key and value characters: tag policies'
 * clusterSelectors read them (`clusterLabels` of @keymaster/tagging). About 30 labels of usual
 * length; a tenant that writes more has the rest, in key order, left unread.
 */
export const CLUSTER_LABEL_CHARACTERS = 2048;

/**
 * An object tenants write (AWSClusters, AWSCredentialsRequests) as the cache keeps it: only the
 * annotations the controller reads, and its labels up to `labelCharacters` (none by default), since
 * a tenant may fill both up to the API server's limits (about 1 MiB) on every object it creates.
 */
export function tenantObjectAsRead(annotationsRead: readonly string[], labelCharacters = 0) {
  return <T extends { metadata?: object }>(object: T): T => {
    const read = withoutUnread(object);
    if (!read.metadata) return read;
    const { labels, annotations, ...metadata } = read.metadata as Metadata & { labels?: Record<string, string> };
    const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => annotationsRead.includes(key)));
    const keptLabels = labelsWithin(labels ?? {}, labelCharacters);
    return {
      ...read,
      metadata: {
        ...metadata,
        ...(Object.keys(keptLabels).length > 0 ? { labels: keptLabels } : {}),
        ...(Object.keys(kept).length > 0 ? { annotations: kept } : {}),
      },
    };
  };
}

/** The labels, in key order, while their keys' and values' characters add up to `budget` at most. */
function labelsWithin(labels: Record<string, string>, budget: number): Record<string, string> {
  const kept: Record<string, string> = {};
  let used = 0;
  for (const key of Object.keys(labels).sort()) {
    used += key.length + labels[key]!.length;
    if (used > budget) break;
    kept[key] = labels[key]!;
  }
  return kept;
}

/**
 * A Secret of the controller's namespace as the controller reads it: a static identity's keys, and
 * the ownerReferences earlier releases set (removed, guarded by resourceVersion).
 */
export const secretAsRead = ({ apiVersion, kind, metadata, data }: V1Secret): V1Secret => ({
  ...(apiVersion ? { apiVersion } : {}),
  ...(kind ? { kind } : {}),
  metadata: pick(metadata ?? {}, ['name', 'namespace', 'uid', 'resourceVersion', 'ownerReferences']),
  ...(data ? { data } : {}),
});

/** A parked object's Ready message as kept: the controller's own is far shorter. */
const PARKED_MESSAGE_LENGTH = 1024;

type Parkable = {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};

/**
 * An object past its namespace's bound as the cache keeps it: who it is, its age, version, deletion
 * and finalizers, and its Ready if that says it is parked (so that the condition is written once).
 */
export function parkedAsRead<T extends Parkable>(object: T): T {
  const metadata = pick((object.metadata ?? {}) as Record<string, unknown>, [
    'name',
    'namespace',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'finalizers',
  ]);
  const ready = object.status?.conditions?.find(
    ({ type, reason }) => type === 'Ready' && reason === ReadyReason.NamespaceLimitReached,
  );
  return {
    ...(object.apiVersion ? { apiVersion: object.apiVersion } : {}),
    ...(object.kind ? { kind: object.kind } : {}),
    metadata,
    ...(ready
      ? { status: { conditions: [{ ...ready, message: ready.message.slice(0, PARKED_MESSAGE_LENGTH) }] } }
      : {}),
  } as T;
}

/** A Namespace as allowedNamespaces selectors read it: its name and labels. */
export const namespaceAsRead = ({ apiVersion, kind, metadata }: V1Namespace): V1Namespace => ({
  ...(apiVersion ? { apiVersion } : {}),
  ...(kind ? { kind } : {}),
  metadata: pick(metadata ?? {}, ['name', 'resourceVersion', 'labels']),
});

function pick<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) if (object[key] !== undefined) picked[key] = object[key];
  return picked;
}
