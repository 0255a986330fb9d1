import type { AWSCluster, Condition, TagConflict } from '@keymaster/api';
import { findCondition } from '@keymaster/reconciler';

/** What the demo shows of one AWSCluster, read from its status. */
export interface ClusterRow {
  namespace: string;
  name: string;
  /** The identity chain, the cluster's own identity first (only its own until it is resolved). */
  chain: string[];
  account: string | undefined;
  /** PrincipalUsageAllowed: whether every identity of the chain allows the namespace. */
  allowed: Condition['status'] | undefined;
  discovered: number | undefined;
  inSync: number | undefined;
  /** Still drifted after the last sync (status). */
  drifted: number | undefined;
  /** Drifted, and set back by the last sync (only an event tells: see set-back.ts). */
  setBack: number;
  conflicts: TagConflict[];
  ready: Pick<Condition, 'status' | 'reason' | 'message'> | undefined;
  /** Whether the status speaks of the current spec (observedGeneration is the generation). */
  current: boolean;
}

/** `Role/tenant-b` for AWSClusterRoleIdentity/tenant-b: the kind's own word, for a narrow table. */
const link = ({ kind, name }: { kind: string; name: string }) =>
  `${kind.replace(/^AWSCluster(\w+)Identity$/, '$1')}/${name}`;

export function clusterRow(cluster: AWSCluster, setBack = 0): ClusterRow {
  const { status, spec, metadata } = cluster;
  const own = spec.identityRef ?? { kind: 'AWSClusterControllerIdentity', name: 'default' };
  const ready = findCondition(status?.conditions, 'Ready');
  return {
    namespace: metadata.namespace ?? '',
    name: metadata.name ?? '',
    chain: (status?.identityChain ?? [own]).map(link),
    account: status?.accountID,
    allowed: findCondition(status?.conditions, 'PrincipalUsageAllowed')?.status,
    discovered: status?.tagging?.resourcesDiscovered,
    inSync: status?.tagging?.resourcesInSync,
    drifted: status?.tagging?.resourcesDrifted,
    setBack,
    conflicts: status?.tagging?.conflicts ?? [],
    ready: ready && { status: ready.status, reason: ready.reason, message: ready.message },
    current: status?.observedGeneration !== undefined && status.observedGeneration === metadata.generation,
  };
}

/** Refused: its namespace may not use the identity chain. It stays so until someone changes an identity. */
export const isRefused = (row: ClusterRow): boolean => row.current && row.allowed === 'False';

/** Ready on its current spec. */
export const isReady = (row: ClusterRow): boolean => row.current && row.ready?.status === 'True';

/**
 * Converged: every cluster is Ready, except those refused by allowedNamespaces. Anything else (an
 * AssumeRole refused, tags failing, nothing reported yet) is not an end state.
 */
export const converged = (rows: readonly ClusterRow[]): boolean =>
  rows.length > 0 && rows.every((row) => isReady(row) || isRefused(row));
