import type { LedgerMemoryGroup } from '@keymaster/api';
import { ResourceMemory, resourceDigest, type ResourcePrints } from './memory.js';

/**
 * What Keymaster wrote on each resource of one cluster, by resource digest: the removal memory an
 * AWSClusterLedger keeps. Most resources of a cluster share one memory, so the ledger groups them.
 */
export class ClusterMemory {
  /** Resource digest -> its prints, as JSON (a group's identity). */
  readonly #byResource = new Map<string, string>();

  /** The memory a ledger's `spec.memory` holds. */
  static fromLedger(groups: readonly LedgerMemoryGroup[] = []): ClusterMemory {
    const memory = new ClusterMemory();
    for (const { resources, ...prints } of groups) {
      const shared = JSON.stringify(new ResourceMemory(prints).prints());
      for (const resource of resources) memory.#byResource.set(resource, shared);
    }
    return memory;
  }

  /** What Keymaster wrote on the resource (empty when nothing is remembered); a copy to change freely. */
  of(arn: string): ResourceMemory {
    const prints = this.#byResource.get(resourceDigest(arn));
    return new ResourceMemory(prints === undefined ? {} : (JSON.parse(prints) as ResourcePrints));
  }

  /** Remembers `memory` for the resource (an empty memory forgets it). */
  set(arn: string, memory: ResourceMemory): void {
    if (memory.empty) this.#byResource.delete(resourceDigest(arn));
    else this.#byResource.set(resourceDigest(arn), JSON.stringify(memory.prints()));
  }

  /** Keeps the resources of `arns` only. */
  keepOnly(arns: Iterable<string>): void {
    const kept = new Set([...arns].map(resourceDigest));
    for (const resource of [...this.#byResource.keys()]) if (!kept.has(resource)) this.#byResource.delete(resource);
  }

  /**
   * This memory less every fingerprint `before` did not hold for the same resource: what is left when
   * nothing new may be recorded (what was forgotten since stays forgotten).
   */
  restrictTo(before: ClusterMemory): ClusterMemory {
    const kept = new ClusterMemory();
    for (const [resource, prints] of this.#byResource) {
      const old = before.#byResource.get(resource);
      if (old === undefined) continue;
      const held = JSON.parse(old) as ResourcePrints;
      const now = JSON.parse(prints) as ResourcePrints;
      const both = Object.fromEntries(
        Object.entries(now).map(([field, list]) => [
          field,
          list.filter((print) => (held[field as keyof ResourcePrints] ?? []).includes(print)),
        ]),
      ) as ResourcePrints;
      const memory = new ResourceMemory(both);
      if (!memory.empty) kept.#byResource.set(resource, JSON.stringify(memory.prints()));
    }
    return kept;
  }

  /** Resources remembered. */
  get size(): number {
    return this.#byResource.size;
  }

  /** As `spec.memory`: resources of identical memory in one group; groups and resources sorted, so equal memories are equal JSON. */
  toLedger(): LedgerMemoryGroup[] {
    const groups = new Map<string, string[]>();
    for (const [resource, prints] of this.#byResource) groups.set(prints, [...(groups.get(prints) ?? []), resource]);
    return [...groups.entries()]
      .map(([prints, resources]) => ({ resources: resources.sort(), ...(JSON.parse(prints) as ResourcePrints) }))
      .sort((a, b) => (a.resources[0]! < b.resources[0]! ? -1 : 1));
  }
}
