import { CustomObjectsApi, type KubeConfig, type V1Namespace } from '@kubernetes/client-node';
import type { Logger } from '../logging.js';
import { isNotFound } from '../kube/errors.js';
import type { CacheSource } from '../manager.js';
import type { Clock } from '../runtime/clock.js';
import { Informer, type CachedObject } from '../runtime/informer.js';
import {
  capaObjectAsRead,
  clusterAsRead,
  FOLLOWED_KINDS,
  type CapaObject,
  type ClusterAPICluster,
  type FollowedKind,
} from './capa-objects.js';

export interface AdoptionCacheOptions {
  kubeConfig: KubeConfig;
  /** Keymaster's cache of Namespaces: which carry the adopt label. */
  namespaces: Informer<V1Namespace>;
  resyncMs: number;
  clock?: Clock;
  logger: Logger;
  onError: (what: string, error: unknown, retryInMs: number) => void;
}

/**
 * The caches of Cluster API's Clusters and CAPA's cluster kinds, in every namespace (a namespace's
 * adopt label is checked by the reconcile, which hears of its changes). A kind whose CRD is not
 * installed is said once at start, with the fix, and not watched: its informer would fail forever.
 */
export class AdoptionCaches implements CacheSource {
  readonly clusters: Informer<ClusterAPICluster>;
  readonly awsClusters: Informer<CapaObject>;
  readonly managedClusters: Informer<CapaObject>;
  readonly controlPlanes: Informer<CapaObject>;
  readonly namespaces: Informer<V1Namespace>;
  readonly #options: AdoptionCacheOptions;
  readonly #custom: CustomObjectsApi;
  readonly #all: [FollowedKind, Informer<CachedObject>][];
  /** The informers started: those whose CRD answered a list. */
  #watched: Informer<CachedObject>[] = [];

  constructor(options: AdoptionCacheOptions) {
    this.#options = options;
    this.#custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.namespaces = options.namespaces;
    this.clusters = this.#informer('Cluster', clusterAsRead);
    this.awsClusters = this.#informer('AWSCluster', capaObjectAsRead);
    this.managedClusters = this.#informer('AWSManagedCluster', capaObjectAsRead);
    this.controlPlanes = this.#informer('AWSManagedControlPlane', capaObjectAsRead);
    this.#all = [
      ['Cluster', this.clusters],
      ['AWSCluster', this.awsClusters],
      ['AWSManagedCluster', this.managedClusters],
      ['AWSManagedControlPlane', this.controlPlanes],
    ] as [FollowedKind, Informer<CachedObject>][];
  }

  #informer<T extends CachedObject>(kind: FollowedKind, transform: (object: T) => T): Informer<T> {
    const { kubeConfig, resyncMs, clock, onError } = this.#options;
    const { group, version, plural } = FOLLOWED_KINDS[kind];
    return new Informer<T>({
      kubeConfig,
      path: `/apis/${group}/${version}/${plural}`,
      list: () => this.#custom.listClusterCustomObject({ group, version, plural }) as Promise<{ items: T[] }>,
      transform,
      resyncMs,
      ...(clock ? { clock } : {}),
      onError: (error, retryInMs) => onError(`${plural}.${group}`, error, retryInMs),
    });
  }

  async start(): Promise<void> {
    const served = await Promise.all(this.#all.map(([kind]) => this.#served(kind)));
    const missing = this.#all.filter((_, i) => !served[i]).map(([kind]) => resourceOf(kind));
    if (missing.length > 0)
      this.#options.logger.warn('--adopt-cluster-api: kinds not served, whose clusters are not followed', {
        missing,
        hint: 'Install Cluster API (v1.11 or later, cluster.x-k8s.io/v1beta2) and CAPA (clusterctl init --infrastructure aws), then restart keymaster',
      });
    this.#watched = this.#all.filter((_, i) => served[i]).map(([, informer]) => informer);
    await Promise.all(this.#watched.map((informer) => informer.start()));
  }

  /** Whether the kind is served: a one-item list; only 404 (no CRD) says no, any other failure the informer reports. */
  async #served(kind: FollowedKind): Promise<boolean> {
    try {
      await this.#custom.listClusterCustomObject({ ...FOLLOWED_KINDS[kind], limit: 1 });
      return true;
    } catch (error) {
      return !isNotFound(error);
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.#watched.map((informer) => informer.stop()));
  }

  get synced(): boolean {
    return this.#watched.every((informer) => informer.synced);
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.#watched.map((informer) => informer.waitForSync()));
  }
}

const resourceOf = (kind: FollowedKind) => {
  const { group, version, plural } = FOLLOWED_KINDS[kind];
  return `${plural}.${group}/${version}`;
};
