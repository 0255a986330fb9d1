/**
 * The driver's side of the management cluster: creating the scenario's objects, editing them, and
 * counting the AWSClusters Ready on their current generation from a watch (an informer: the API
 * server sends each change once, where polling would list 10,000 objects a second).
 */
import {
  CustomObjectsApi,
  KubernetesObjectApi,
  makeInformer,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { AWSCluster } from '@keymaster/api';
import { createObjects, type Manifest } from '@keymaster/testenv';
import { clusterRow, isReady } from '../../src/demo/clusters.js';

const GROUP = 'infrastructure.keymaster.dev';
const VERSION = 'v1beta1';
/** Objects created at once: the API server, not the driver, should be what limits creation. */
const CREATORS = 8;

/** A cluster's own objects: an AWSCluster (Keymaster's, or CAPA's with its Cluster API Cluster). */
const perCluster = ({ kind }: Manifest) => kind === 'AWSCluster' || kind === 'Cluster';

/** Creates everything but the clusters in order, then the clusters from several clients at once. */
export async function createFleet(kubeConfig: KubeConfig, objects: readonly Manifest[]): Promise<void> {
  const clusters = objects.filter(perCluster);
  await createObjects(
    kubeConfig,
    objects.filter((object) => !perCluster(object)),
  );
  await Promise.all(
    Array.from({ length: CREATORS }, (_, slice) =>
      createObjects(
        kubeConfig,
        clusters.filter((_, index) => index % CREATORS === slice),
      ),
    ),
  );
}

/** Reads an object, changes it and writes it back, answering what was written (a conflict retries). */
export async function edit<T extends object>(
  kubeConfig: KubeConfig,
  object: Manifest,
  change: (current: T) => void,
): Promise<T> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (;;) {
    const current = (await client.read(object as never)) as T;
    change(current);
    try {
      return await client.replace(current);
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
  }
}

/** The AWSClusters Ready on their current generation, kept up to date by a watch. */
export interface ReadyClusters {
  count(): number;
  /** Whether these clusters are all Ready on a generation at least the one given. */
  allReady(clusters: ReadonlyMap<string, number>): boolean;
  stop(): Promise<void>;
}

const keyOf = ({ metadata }: KubernetesObject) => `${metadata?.namespace ?? ''}/${metadata?.name ?? ''}`;

export async function watchReadiness(kubeConfig: KubeConfig): Promise<ReadyClusters> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const informer = makeInformer<KubernetesObject>(
    kubeConfig,
    `/apis/${GROUP}/${VERSION}/awsclusters`,
    () =>
      api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awsclusters' }) as ReturnType<
        Parameters<typeof makeInformer<KubernetesObject>>[2]
      >,
  );
  const ready = new Map<string, number>();
  const seen = (object: KubernetesObject) => {
    const cluster = object as unknown as AWSCluster;
    if (isReady(clusterRow(cluster))) ready.set(keyOf(object), cluster.metadata.generation ?? 0);
    else ready.delete(keyOf(object));
  };
  informer.on('add', seen);
  informer.on('update', seen);
  informer.on('delete', (cluster) => ready.delete(keyOf(cluster)));
  informer.on('error', () => {
    // The informer does not restart by itself.
    setTimeout(() => void informer.start(), 1000).unref();
  });
  await informer.start();
  return {
    count: () => ready.size,
    allReady: (clusters) => [...clusters].every(([key, generation]) => (ready.get(key) ?? -1) >= generation),
    stop: () => informer.stop(),
  };
}
