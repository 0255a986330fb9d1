/**
 * Which AWSClusters use which clusterName in which AWS account. Two clusters with the same name in
 * one account share ownership tags: they would fight over the same resources.
 */
export class ClusterNames {
  readonly #byName = new Map<string, Set<string>>();
  readonly #byCluster = new Map<string, string>();

  /**
   * Records the cluster's claim. `others` claim the same name in that account; `affected` are the
   * clusters whose duplicates changed with this claim (those it joined and those it left), empty when
   * the claim is the one already recorded.
   */
  claim(cluster: string, accountId: string, clusterName: string): { others: string[]; affected: string[] } {
    const name = `${accountId}/${clusterName}`;
    const changed = this.#byCluster.get(cluster) !== name;
    const left = changed ? this.release(cluster) : [];
    if (changed) {
      this.#byCluster.set(cluster, name);
      let claimants = this.#byName.get(name);
      if (!claimants) this.#byName.set(name, (claimants = new Set()));
      claimants.add(cluster);
    }
    const others = [...this.#byName.get(name)!].filter((other) => other !== cluster).sort();
    return { others, affected: changed ? [...left, ...others] : [] };
  }

  /** Forgets the cluster's claim; returns the clusters that shared it (they may now be unique). */
  release(cluster: string): string[] {
    const name = this.#byCluster.get(cluster);
    if (name === undefined) return [];
    this.#byCluster.delete(cluster);
    const claimants = this.#byName.get(name)!;
    claimants.delete(cluster);
    if (claimants.size === 0) this.#byName.delete(name);
    return [...claimants];
  }
}
