/** What the registry knows of an AWSCluster whose identity resolved in this process. */
export interface Claimant {
  /** namespace/name. */
  key: string;
  clusterName: string;
  accountId: string;
  /** spec.region, then spec.tagging.extraRegions. */
  regions: readonly string[];
}

/**
 * Which AWSClusters use which clusterName in which AWS account and regions, as this process learnt
 * when their identities resolved. Two clusters with one name in one account and a common region are
 * rivals: they share ownership tags, so only one of them (the claim's owner) may tag.
 */
export class ClusterNames {
  readonly #claimants = new Map<string, Claimant>();
  /** Clusters whose identity was refused: they make no AWS call, so they claim nothing. */
  readonly #refused = new Set<string>();
  readonly #byName = new Map<string, Set<string>>();
  readonly #nameOf = new Map<string, string>();

  /**
   * Records what a cluster resolved to. Returns the other clusters of that clusterName (before and
   * after) when the record changed: their rivals or their wait may have changed with it.
   */
  record(claimant: Claimant): string[] {
    const before = this.#claimants.get(claimant.key);
    if (before && sameClaim(before, claimant) && !this.#refused.has(claimant.key)) return [];
    const affected = this.release(claimant.key);
    this.#claimants.set(claimant.key, claimant);
    this.#name(claimant.key, claimant.clusterName);
    return unique([...affected, ...this.#others(claimant.key, claimant.clusterName)]);
  }

  /** Records that a cluster's identity was refused; returns the clusters this may concern. */
  refuse(key: string, clusterName: string): string[] {
    if (this.#refused.has(key)) return [];
    const affected = this.release(key);
    this.#refused.add(key);
    this.#name(key, clusterName);
    return unique([...affected, ...this.#others(key, clusterName)]);
  }

  /** Forgets a cluster; returns the clusters that shared its clusterName. */
  release(key: string): string[] {
    const clusterName = this.#nameOf.get(key);
    this.#nameOf.delete(key);
    this.#claimants.delete(key);
    this.#refused.delete(key);
    if (clusterName === undefined) return [];
    const keys = this.#byName.get(clusterName)!;
    keys.delete(key);
    if (keys.size === 0) this.#byName.delete(clusterName);
    return [...keys];
  }

  /** Whether this process has checked the cluster's identity (resolved or refused) since it started. */
  checked(key: string): boolean {
    return this.#claimants.has(key) || this.#refused.has(key);
  }

  /** The recorded clusters with the claimant's name, in its account, with a region in common. */
  rivals(claimant: Claimant): Claimant[] {
    return this.#others(claimant.key, claimant.clusterName)
      .map((key) => this.#claimants.get(key))
      .filter((other): other is Claimant => other !== undefined)
      .filter(
        (other) =>
          other.accountId === claimant.accountId && other.regions.some((region) => claimant.regions.includes(region)),
      );
  }

  #others(key: string, clusterName: string): string[] {
    return [...(this.#byName.get(clusterName) ?? [])].filter((other) => other !== key).sort();
  }

  #name(key: string, clusterName: string): void {
    let keys = this.#byName.get(clusterName);
    if (!keys) this.#byName.set(clusterName, (keys = new Set()));
    keys.add(key);
    this.#nameOf.set(key, clusterName);
  }
}

const sameClaim = (a: Claimant, b: Claimant) =>
  a.clusterName === b.clusterName &&
  a.accountId === b.accountId &&
  a.regions.length === b.regions.length &&
  a.regions.every((region, index) => region === b.regions[index]);

const unique = (keys: string[]) => [...new Set(keys)].sort();
