import type { AWSCluster } from '@keymaster/api';
import { clusterNameOf } from '../awscluster/name-claim.js';
import { clusterRequest } from '../identity/dependents.js';
import { keyOf, type Request } from '../runtime/controller.js';

/**
 * The AWSClusters of each clusterName (spec.clusterName, else metadata.name), kept from informer
 * events: the name claim reads a cluster's rivals here, not in a scan of the fleet per reconcile.
 */
export class ClustersByName {
  readonly #byName = new Map<string, Map<string, Request>>();
  readonly #nameOf = new Map<string, string>();

  /** Files an added or changed cluster under its clusterName now. */
  set(cluster: AWSCluster): void {
    const request = clusterRequest(cluster);
    const key = keyOf(request);
    const name = clusterNameOf(cluster);
    if (this.#nameOf.get(key) === name) return;
    this.remove(cluster);
    this.#nameOf.set(key, name);
    let clusters = this.#byName.get(name);
    if (!clusters) this.#byName.set(name, (clusters = new Map<string, Request>()));
    clusters.set(key, request);
  }

  remove(cluster: AWSCluster): void {
    const key = keyOf(clusterRequest(cluster));
    const name = this.#nameOf.get(key);
    if (name === undefined) return;
    this.#nameOf.delete(key);
    const clusters = this.#byName.get(name)!;
    clusters.delete(key);
    if (clusters.size === 0) this.#byName.delete(name);
  }

  /** The clusters filed under the clusterName. */
  named(clusterName: string): Request[] {
    return [...(this.#byName.get(clusterName)?.values() ?? [])];
  }
}
