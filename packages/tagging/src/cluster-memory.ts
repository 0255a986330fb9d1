import type { LedgerMemoryGroup } from '@keymaster/api';
import { ResourceMemory, resourceDigest, type ResourcePrints } from './memory.js';

/** One resource's memory as kept: its prints, and their JSON (what groups resources of the same memory). */
interface Remembered {
  readonly prints: ResourcePrints;
  readonly json: string;
}

const remembered = (prints: ResourcePrints): Remembered => ({ prints, json: JSON.stringify(prints) });

/**
 * What Keymaster wrote on each resource of one cluster, by resource digest: the removal memory an
 * AWSClusterLedger keeps. Most resources of a cluster share one memory, so the ledger groups them.
 */
export class ClusterMemory {
  /** Resource digest -> its memory; never changed in place (shared by a group's resources, and by copies). */
  #byResource = new Map<string, Remembered>();
  /** ARN -> resource digest: a reconcile asks for each resource several times (plans, memory after); copies share it. */
  #digests = new Map<string, string>();

  /** The memory a ledger's `spec.memory` holds. */
  static fromLedger(groups: readonly LedgerMemoryGroup[] = []): ClusterMemory {
    const memory = new ClusterMemory();
    for (const { resources, ...prints } of groups) {
      const shared = remembered(new ResourceMemory(prints).prints());
      for (const resource of resources) memory.#byResource.set(resource, shared);
    }
    return memory;
  }

  /** An independent copy: changing one leaves the other as it was. */
  copy(): ClusterMemory {
    const copy = new ClusterMemory();
    copy.#byResource = new Map(this.#byResource);
    copy.#digests = this.#digests;
    return copy;
  }

  /** What Keymaster wrote on the resource (empty when nothing is remembered); a copy to change freely. */
  of(arn: string): ResourceMemory {
    return new ResourceMemory(this.#byResource.get(this.#digestOf(arn))?.prints);
  }

  /** Remembers `memory` for the resource (an empty memory forgets it). */
  set(arn: string, memory: ResourceMemory): void {
    if (memory.empty) this.#byResource.delete(this.#digestOf(arn));
    else this.#byResource.set(this.#digestOf(arn), remembered(memory.prints()));
  }

  /** Keeps the resources of `arns` only. */
  keepOnly(arns: Iterable<string>): void {
    const kept = new Set(Array.from(arns, (arn) => this.#digestOf(arn)));
    for (const resource of [...this.#byResource.keys()]) if (!kept.has(resource)) this.#byResource.delete(resource);
  }

  /**
   * This memory less every fingerprint `before` did not hold for the same resource: what is left when
   * nothing new may be recorded (what was forgotten since stays forgotten).
   */
  restrictTo(before: ClusterMemory): ClusterMemory {
    const kept = new ClusterMemory();
    for (const [resource, { prints: now }] of this.#byResource) {
      const held = before.#byResource.get(resource)?.prints;
      if (held === undefined) continue;
      const both = Object.fromEntries(
        Object.entries(now).map(([field, list]) => [
          field,
          list.filter((print) => (held[field as keyof ResourcePrints] ?? []).includes(print)),
        ]),
      ) as ResourcePrints;
      const memory = new ResourceMemory(both);
      if (!memory.empty) kept.#byResource.set(resource, remembered(memory.prints()));
    }
    return kept;
  }

  /** Resources remembered. */
  get size(): number {
    return this.#byResource.size;
  }

  /** As `spec.memory`: resources of identical memory in one group; groups and resources sorted, so equal memories are equal JSON. */
  toLedger(): LedgerMemoryGroup[] {
    const groups = new Map<string, { prints: ResourcePrints; resources: string[] }>();
    for (const [resource, { prints, json }] of this.#byResource) {
      const group = groups.get(json);
      if (group === undefined) groups.set(json, { prints, resources: [resource] });
      else group.resources.push(resource);
    }
    return [...groups.values()]
      .map(({ prints, resources }) => ({ resources: resources.sort(), ...copyOf(prints) }))
      .sort((a, b) => (a.resources[0]! < b.resources[0]! ? -1 : 1));
  }

  #digestOf(arn: string): string {
    let digest = this.#digests.get(arn);
    if (digest === undefined) {
      digest = resourceDigest(arn);
      this.#digests.set(arn, digest);
    }
    return digest;
  }
}

/** Prints with lists of their own: what a ledger's reader does with them never reaches this memory. */
const copyOf = (prints: ResourcePrints): ResourcePrints =>
  Object.fromEntries(Object.entries(prints).map(([field, list]) => [field, [...list]]));
