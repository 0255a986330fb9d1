import type { V1Lease } from '@kubernetes/client-node';
import { expired, free } from './lease.js';

/**
 * When this replica saw each Lease change last, on its own clock (client-go's observedTime): a Lease
 * expires a lease duration after this replica last saw it change, whatever its renewTime says, so a
 * holder's clock running ahead or behind neither keeps a dead lease alive nor lets a live one be taken.
 * Every write (a renewal, a new holder) changes the resourceVersion; renewTime prints to the second only.
 */
export class LeaseSightings {
  readonly #seen = new Map<string, { version: string; at: number }>();

  /** Notes the Leases read at `now`; those no longer among them are forgotten. */
  observe(leases: readonly V1Lease[], now: number): void {
    const names = new Set<string>();
    for (const lease of leases) {
      const name = lease.metadata?.name ?? '';
      names.add(name);
      const version = lease.metadata?.resourceVersion ?? '';
      if (this.#seen.get(name)?.version !== version) this.#seen.set(name, { version, at: now });
    }
    for (const name of this.#seen.keys()) if (!names.has(name)) this.#seen.delete(name);
  }

  /** Held by someone who has not renewed it for its lease duration, as this replica has watched it. */
  expired(lease: V1Lease, now: number): boolean {
    return expired(lease, now, this.#changedAt(lease, now));
  }

  /** Whether anybody may take the Lease, as this replica has watched it. */
  free(lease: V1Lease | undefined, now: number): boolean {
    return free(lease, now, lease && this.#changedAt(lease, now));
  }

  #changedAt(lease: V1Lease, now: number): number {
    return this.#seen.get(lease.metadata?.name ?? '')?.at ?? now;
  }
}
