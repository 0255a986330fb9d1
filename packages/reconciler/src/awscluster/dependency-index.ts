/**
 * Which AWSClusters depend on which identities and Secrets, through their chains, so that a change
 * to one enqueues exactly the clusters it affects. Each reconcile records what the cluster's chain
 * touched, including a link that was missing (so that creating it wakes the cluster up).
 */
export class DependencyIndex {
  readonly #byCluster = new Map<string, Set<string>>();
  readonly #byDependency = new Map<string, Set<string>>();

  /** Replaces what `cluster` depends on: `Kind/name` of identities and `Secret/name` of Secrets. */
  record(cluster: string, dependencies: Iterable<string>): void {
    this.forget(cluster);
    const set = new Set(dependencies);
    this.#byCluster.set(cluster, set);
    for (const dependency of set) {
      let clusters = this.#byDependency.get(dependency);
      if (!clusters) this.#byDependency.set(dependency, (clusters = new Set()));
      clusters.add(cluster);
    }
  }

  forget(cluster: string): void {
    for (const dependency of this.#byCluster.get(cluster) ?? []) {
      const clusters = this.#byDependency.get(dependency);
      clusters?.delete(cluster);
      if (clusters?.size === 0) this.#byDependency.delete(dependency);
    }
    this.#byCluster.delete(cluster);
  }

  /** The clusters that depend on `dependency` (`Kind/name` or `Secret/name`). */
  dependents(dependency: string): string[] {
    return [...(this.#byDependency.get(dependency) ?? [])];
  }

  dependencies(cluster: string): string[] {
    return [...(this.#byCluster.get(cluster) ?? [])];
  }
}
