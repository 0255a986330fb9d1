/**
 * Which shard an object belongs to, and how many shards a replica should hold: pure functions that
 * every replica, of every version, must compute alike (docs/reconciler.md#shards).
 */

/**
 * The shard of an object's key (an AWSCluster's clusterName, a request's `namespace/name`): FNV-1a
 * (32 bits) of its UTF-8 bytes, modulo the number of shards. FNV-1a is fixed by its specification, so
 * replicas of different versions (a rolling upgrade) agree; changing it would let two replicas
 * reconcile one cluster.
 */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(key)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * What one replica should hold, given the live replicas: its quota (the shards split as evenly as
 * they go, the first replicas in name order taking one more when they do not divide) and its
 * preferred shards (those whose index modulo the replica count is its position), which are exactly
 * as many as its quota. Replicas try their preferred shards first, so that they rarely race for one.
 */
export function fairShare(
  shards: number,
  replicas: readonly string[],
  identity: string,
): { quota: number; preferred: number[] } {
  const sorted = [...new Set([...replicas, identity])].sort();
  const position = sorted.indexOf(identity);
  const preferred = Array.from({ length: shards }, (_, shard) => shard).filter(
    (shard) => shard % sorted.length === position,
  );
  return { quota: preferred.length, preferred };
}
