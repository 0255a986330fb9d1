import { getHeapStatistics } from 'node:v8';
import {
  packedKnownBytes,
  packKnown,
  unpackKnown,
  type DiscoveredResources,
  type PackedKnown,
} from '@keymaster/tagging';
import type { TagTicketParts } from './tag-ticket.js';

/**
 * What the known sets of all clusters may take (`packedKnownBytes`) in a heap that V8 lets grow to
 * `heapLimit` bytes: a sixth of it, 128 MiB at most. The Deployment's heap (384 MiB, a limit of 432
 * with the young generation) gives 72 MiB: at 10,000 clusters of 20 resources with 6 tags the sets
 * take 51 MiB packed, and the rest of the heap peaked at about 270 MiB. Past it the sets used longest
 * ago are dropped, and their clusters discover again at their next edit: a tenant's accounts with a
 * great many resources cost scans, never the heap the other tenants' work needs.
 */
export const knownBytesFor = (heapLimit: number): number => Math.min(128 * 1024 * 1024, Math.floor(heapLimit / 6));

/** `knownBytesFor` this process's heap limit (`--max-old-space-size`, NODE_OPTIONS in the Deployment). */
export const DEFAULT_KNOWN_BYTES = knownBytesFor(getHeapStatistics().heap_size_limit);

/** A cluster's known set, and when the discovery it comes from ran. */
export interface KnownSet {
  resources: DiscoveredResources;
  /** Epoch ms: a set planned from keeps the time of the discovery it came from. */
  discoveredAt: number;
}

/** A known set as kept: packed (`packKnown`), unpacked when a work plans from it. */
interface Known {
  inputs: TagTicketParts;
  packed: PackedKnown;
  discoveredAt: number;
  bytes: number;
}

export interface KnownResourcesOptions {
  /** What all known sets may take (`packedKnownBytes`); default `DEFAULT_KNOWN_BYTES`. */
  maxBytes?: number;
  /**
   * A set older than this (the sync period) is not planned from: a cluster whose layers are edited more
   * often than it resyncs (each resync then meets an edit) still discovers once a period. Default: never.
   */
  maxAgeMs?: number;
}

/**
 * Per cluster, the resources its last synced tag work left (`TagReconcileResult.known`) and the
 * inputs it ran on: a work whose layers alone changed since (a tag policy or identity edit) plans its
 * writes from them instead of discovering. Kept in memory only, per cluster key (so per credential
 * set too: the ticket names it), forgotten with the cluster, at most `maxBytes` in all.
 */
export class KnownResources {
  /** In the order recorded: the first is the one used longest ago. */
  readonly #byCluster = new Map<string, Known>();
  #bytes = 0;

  readonly #maxBytes: number;
  readonly #maxAgeMs: number;

  constructor({ maxBytes = DEFAULT_KNOWN_BYTES, maxAgeMs = Infinity }: KnownResourcesOptions = {}) {
    this.#maxBytes = maxBytes;
    this.#maxAgeMs = maxAgeMs;
  }

  /** What the known sets take now (`packedKnownBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Takes what a work on `inputs` may plan from at `now` (epoch ms), if anything: only when the last
   * work was synced, on the same discovery inputs, and on other layers, from a discovery younger than
   * `maxAgeMs`. The same inputs again is a resync, or a signal that resources changed: that work
   * discovers. Taken, not kept: a work that fails leaves nothing known.
   */
  take(cluster: string, inputs: TagTicketParts, now: number): KnownSet | undefined {
    const known = this.#byCluster.get(cluster);
    this.forget(cluster);
    if (known?.inputs.discovery !== inputs.discovery || known.inputs.layers === inputs.layers) return undefined;
    if (now - known.discoveredAt >= this.#maxAgeMs) return undefined;
    return { resources: unpackKnown(known.packed), discoveredAt: known.discoveredAt };
  }

  /** What a synced work on `inputs` left, from a discovery at `discoveredAt` (epoch ms). */
  record(cluster: string, inputs: TagTicketParts, { resources, discoveredAt }: KnownSet): void {
    this.forget(cluster);
    const packed = packKnown(resources);
    const bytes = packedKnownBytes(packed);
    if (bytes > this.#maxBytes) return;
    for (const [oldest, { bytes: taken }] of this.#byCluster) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#byCluster.delete(oldest);
      this.#bytes -= taken;
    }
    this.#byCluster.set(cluster, { inputs, packed, discoveredAt, bytes });
    this.#bytes += bytes;
  }

  forget(cluster: string): void {
    const known = this.#byCluster.get(cluster);
    if (!known) return;
    this.#byCluster.delete(cluster);
    this.#bytes -= known.bytes;
  }
}
