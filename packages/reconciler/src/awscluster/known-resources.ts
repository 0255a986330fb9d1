import { knownBytes, type DiscoveredResources } from '@keymaster/tagging';
import type { TagTicketParts } from './tag-ticket.js';

/**
 * What the known sets of all clusters may take (`knownBytes`): at 10,000 clusters of 20 resources with
 * 6 tags, about 130 MiB. Past it the sets used longest ago are dropped, and their clusters discover
 * again at their next edit: a tenant's account with a great many resources costs scans, not memory.
 */
export const DEFAULT_KNOWN_BYTES = 128 * 1024 * 1024;

interface Known {
  inputs: TagTicketParts;
  resources: DiscoveredResources;
  bytes: number;
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

  constructor(private readonly maxBytes = DEFAULT_KNOWN_BYTES) {}

  /** What the known sets take now (`knownBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Takes what a work on `inputs` may plan from, if anything: only when the last work was synced, on
   * the same discovery inputs, and on other layers. The same inputs again is a resync, or a signal that
   * resources changed: that work discovers. Taken, not kept: a work that fails leaves nothing known.
   */
  take(cluster: string, inputs: TagTicketParts): DiscoveredResources | undefined {
    const known = this.#byCluster.get(cluster);
    this.forget(cluster);
    if (known?.inputs.discovery !== inputs.discovery || known.inputs.layers === inputs.layers) return undefined;
    return known.resources;
  }

  /** What a synced work on `inputs` left. */
  record(cluster: string, inputs: TagTicketParts, resources: DiscoveredResources): void {
    this.forget(cluster);
    const bytes = knownBytes(resources);
    if (bytes > this.maxBytes) return;
    for (const [oldest, { bytes: taken }] of this.#byCluster) {
      if (this.#bytes + bytes <= this.maxBytes) break;
      this.#byCluster.delete(oldest);
      this.#bytes -= taken;
    }
    this.#byCluster.set(cluster, { inputs, resources, bytes });
    this.#bytes += bytes;
  }

  forget(cluster: string): void {
    const known = this.#byCluster.get(cluster);
    if (!known) return;
    this.#byCluster.delete(cluster);
    this.#bytes -= known.bytes;
  }
}
