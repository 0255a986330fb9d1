import { isDeepStrictEqual } from 'node:util';
import { ReadyReason, type Condition, type ConditionUpdate } from '@keymaster/api';
import { setCondition } from '../awscluster/conditions.js';
import { holds, withoutFinalizer, type Finalizer } from './finalizers.js';
import type { KeymasterObject } from './resources.js';
import type { KubeWriter } from './writer.js';

/** A namespace's bound on one kind: how many the controller serves, and the flag that says so. */
export interface NamespaceLimit {
  /** The kind's plural as people say it: "AWSClusters". */
  plural: string;
  limit: number;
  flag: string;
}

/** The writes a parked object's reconcile makes. */
export type ParkedWriter = Pick<KubeWriter, 'setFinalizers' | 'replaceStatus'>;

type Parked = KeymasterObject & {
  metadata: { generation?: number; deletionTimestamp?: string };
  status?: { conditions?: Condition[] };
};

/** Ready of an object past its namespace's bound: no work is held for it, and what would change that. */
function parkedReady(namespace: string, { plural, limit, flag }: NamespaceLimit): ConditionUpdate {
  return {
    type: 'Ready',
    status: 'False',
    reason: ReadyReason.NamespaceLimitReached,
    message:
      `Namespace ${namespace} holds more ${plural} than the controller serves per namespace (${limit}, --${flag}): ` +
      `it serves the oldest and holds no work for this one. Delete ${plural} of this namespace, or ask the platform ` +
      `team to raise --${flag}.`,
  };
}

/**
 * The reconcile of a parked object (the informer keeps its metadata only): its finalizer let go if it
 * is being deleted (it holds nothing of Keymaster's), else its Ready written once to say it is parked.
 */
export async function reconcileParked(
  object: Parked,
  finalizer: Finalizer,
  limit: NamespaceLimit,
  writer: ParkedWriter,
  now: Date,
): Promise<void> {
  const finalizers = object.metadata.finalizers ?? [];
  if (object.metadata.deletionTimestamp) {
    if (holds(finalizers, finalizer)) await writer.setFinalizers(object, withoutFinalizer(finalizers, finalizer));
    return;
  }
  const before = object.status?.conditions ?? [];
  const ready = parkedReady(object.metadata.namespace ?? '', limit);
  const conditions = setCondition(before, ready, object.metadata.generation ?? 0, now.toISOString());
  if (!isDeepStrictEqual(conditions, before)) await writer.replaceStatus({ ...object, status: { conditions } });
}
