import type { DiscoveredResources } from '@keymaster/tagging';
import type { TagTicketParts } from './tag-ticket.js';

/**
 * Per cluster, the resources its last synced tag work left (`TagReconcileResult.known`) and the
 * inputs it ran on: a work whose layers alone changed since (a tag policy or identity edit) plans its
 * writes from them instead of discovering. Kept in memory only, per cluster key (so per credential
 * set too: the ticket names it), forgotten with the cluster.
 */
export class KnownResources {
  readonly #byCluster = new Map<string, { inputs: TagTicketParts; resources: DiscoveredResources }>();

  /**
   * Takes what a work on `inputs` may plan from, if anything: only when the last work was synced, on
   * the same discovery inputs, and on other layers. The same inputs again is a resync, or a signal that
   * resources changed: that work discovers. Taken, not kept: a work that fails leaves nothing known.
   */
  take(cluster: string, inputs: TagTicketParts): DiscoveredResources | undefined {
    const known = this.#byCluster.get(cluster);
    this.#byCluster.delete(cluster);
    if (known?.inputs.discovery !== inputs.discovery || known.inputs.layers === inputs.layers) return undefined;
    return known.resources;
  }

  /** What a synced work on `inputs` left. */
  record(cluster: string, inputs: TagTicketParts, resources: DiscoveredResources): void {
    this.#byCluster.set(cluster, { inputs, resources });
  }

  forget(cluster: string): void {
    this.#byCluster.delete(cluster);
  }
}
